import { MAX_LOGO_BYTES, ProjectBrandingSchema } from "../../../contracts/branding";
import { S3Client } from "../../../contracts/s3-client";
import { projectStorageGrant } from "../../jobs/scratch";
import type { HandOverExtra } from "../shared/transcript-handover";

/**
 * With a `branding` fill, the project's logo is copied next to the transcript in the job's scratch:
 * the runner only ever holds the job's own storage grant, and the logo may live in another bucket
 * of the project. A logo that has gone since it was set is left out (the colour still brands the
 * clip) and the stage says so; it never fails the job.
 */
export const copyBrandLogo: HandOverExtra = async ({ env, job, s3, bucket, scratch }): ReturnType<HandOverExtra> => {
  const branding = ProjectBrandingSchema.nullable().safeParse(job.input["branding"] ?? null);
  const options = (job.input["options"] ?? {}) as { fillStyle?: unknown };
  const logo = branding.success ? branding.data?.logo : null;
  if (!logo || options.fillStyle !== "branding") return { keys: {}, details: {} };
  const skip = (why: string) => ({ keys: {}, details: { logo: `left out: ${why}` } });
  const grant = await projectStorageGrant(env, job.projectId, logo.connectionId, logo.bucket);
  if (!grant) return skip(`storage connection ${logo.connectionId} is gone`);
  let res: Response;
  try {
    res = await new S3Client(grant, 15_000).getObject(logo.bucket, logo.key);
  } catch (err) {
    return skip(`s3://${logo.bucket}/${logo.key} could not be read (${err instanceof Error ? err.message : String(err)})`);
  }
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (bytes.byteLength > MAX_LOGO_BYTES) return skip(`${bytes.byteLength} bytes is more than ${MAX_LOGO_BYTES}`);
  const key = `${scratch}logo`;
  await s3.putObject(bucket, key, bytes, res.headers.get("content-type") ?? "application/octet-stream");
  return { keys: { logoKey: key }, details: { logo: { bucket: logo.bucket, key: logo.key, bytes: bytes.byteLength } } };
};
