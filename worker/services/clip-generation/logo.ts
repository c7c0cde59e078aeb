import { BodyTooLargeError, readAllWithin } from "../../../contracts/bounded-read";
import { type BrandLogoHandover, MAX_LOGO_BYTES } from "../../../contracts/branding";
import { ClipGenerationStoredSchema } from "../../../contracts/services/clip-generation";
import type { Job } from "../../../contracts/job";
import { S3Client } from "../../../contracts/s3-client";
import type { Env } from "../../env";
import { projectStorageGrant } from "../../storage/scratch";
import { StorageConnectionInactive } from "../../storage/connections";
import { b64encode } from "../../platform/crypto";
import type { HandOverExtra } from "../shared/transcript-handover";
import type { RunnerCall } from "../types";

/**
 * With a `branding` fill, the project's logo goes to the runner: copied next to the transcript in a
 * bucket job's scratch (the runner only ever holds the job's own storage grant, and the logo may live
 * in another bucket of the project), or answered by the runner call `clip_generation.logo` for an
 * `s3_presigned` job, which has no bucket. A logo that has gone since it was set, grew past
 * MAX_LOGO_BYTES, or answers with a redirect (never followed) is left out (the colour still brands
 * the clip) and the stage says so; it never fails the job. It is read with its cap, never whole.
 */

type LogoRead = { bytes: Uint8Array; contentType: string; bucket: string; key: string } | { skip: string } | null;

async function readBrandLogo(env: Env, job: Job): Promise<LogoRead> {
  const { branding, options } = ClipGenerationStoredSchema.parse(job.input);
  const logo = branding?.logo;
  if (!logo || options.fillStyle !== "branding") return null;
  let grant: Awaited<ReturnType<typeof projectStorageGrant>>;
  try {
    grant = await projectStorageGrant(env, job.projectId, logo.connectionId, logo.bucket);
  } catch (err) {
    if (err instanceof StorageConnectionInactive) return { skip: `storage connection ${logo.connectionId} was deactivated` };
    throw err;
  }
  if (!grant) return { skip: `storage connection ${logo.connectionId} is gone` };
  let bytes: Uint8Array;
  let contentType: string;
  try {
    const res = await new S3Client(grant, 15_000).getObject(logo.bucket, logo.key);
    contentType = res.headers.get("content-type") ?? "application/octet-stream";
    // Streamed with its cap, never read whole first: the object may have been replaced since checkLogo.
    bytes = await readAllWithin(res, MAX_LOGO_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLargeError)
      return { skip: `the logo ${err.declared ? `is ${err.seen} bytes,` : "is"} more than ${MAX_LOGO_BYTES} bytes` };
    return { skip: `s3://${logo.bucket}/${logo.key} could not be read (${err instanceof Error ? err.message : String(err)})` };
  }
  return { bytes, contentType, bucket: logo.bucket, key: logo.key };
}

export const copyBrandLogo: HandOverExtra = async ({ env, job, s3, bucket, scratch }): ReturnType<HandOverExtra> => {
  const read = await readBrandLogo(env, job);
  if (!read) return { keys: {}, details: {} };
  if ("skip" in read) return { keys: {}, details: { logo: `left out: ${read.skip}` } };
  const key = `${scratch}logo`;
  await s3.putObject(bucket, key, read.bytes, read.contentType);
  return { keys: { logoKey: key }, details: { logo: { bucket: read.bucket, key: read.key, bytes: read.bytes.byteLength } } };
};

/** `clip_generation.logo`: the logo itself, base64 (at most MAX_LOGO_BYTES), for a job with no bucket. */
export const brandLogoCall: RunnerCall = async ({ env, job }) => {
  const read = await readBrandLogo(env, job);
  const answer: BrandLogoHandover =
    read === null
      ? { logo: null, note: null }
      : "skip" in read
        ? { logo: null, note: `left out: ${read.skip}` }
        : {
            logo: {
              data: b64encode(read.bytes),
              contentType: read.contentType,
              bucket: read.bucket,
              key: read.key,
              bytes: read.bytes.byteLength,
            },
            note: null,
          };
  return answer;
};
