import { S3Client, S3RedirectError } from "../../../contracts/s3-client";
import type { Settings } from "../../../contracts/settings";
import type { Db } from "../../db/client";
import type { Env } from "../../env";
import { validationError } from "../../errors";
import { checkedSource, type TranscriptRow } from "../../transcripts/lookup";
import { requireUsableConnection } from "../../storage/connections";
import { connectionLocation } from "../../storage/connections";
import { probeBucketSource } from "./source-probe";

/**
 * The source video and output prefix of a service that works from a transcription's video (clips,
 * thumbnails): the source resolved from the transcription's job when the request names none, the
 * output prefix defaulted under the connection's `defaultOutputPrefix`, and the create-time S3
 * probes (a ranged GET of the source, source-probe.ts; a write and delete under the prefix).
 */
type SourceFields = { connectionId?: string; bucket?: string; sourceKey?: string; sourceType?: string; outputPrefix?: string };

export interface VideoSource<T extends SourceFields> {
  /** The request's input with its source fields filled in. */
  source: T & { connectionId: string; bucket: string; sourceKey: string };
  prefix: string;
  /** The S3 probes, run by create after the quota check. */
  probe: () => Promise<void>;
}

export async function resolveVideoSource<T extends SourceFields>(
  db: Db,
  env: Env,
  projectId: string,
  input: T,
  transcript: TranscriptRow,
  /** The folder under `{defaultOutputPrefix}/{textSourceId}/`, e.g. `clips`. */
  folder: string,
  /** The platform's runner bounds: the probe refuses a source no runner would download. */
  runner: Settings["runner"],
): Promise<VideoSource<T>> {
  const source = await checkedSource(db, projectId, input, transcript);
  if (!source.connectionId || !source.bucket || !source.sourceKey)
    throw validationError("the transcription has no source video; send connectionId, bucket and sourceKey", [
      { path: "input.sourceKey", issue: "required" },
    ]);
  const conn = await requireUsableConnection(db, projectId, source.connectionId, source.bucket);
  const prefix = input.outputPrefix
    ? input.outputPrefix.replace(/\/?$/, "/")
    : `${conn.defaultOutputPrefix.replace(/\/$/, "")}/${transcript.id}/${folder}/`;
  const { bucket, sourceKey } = source;

  const probe = async () => {
    const s3 = new S3Client(await connectionLocation(conn, env.ENCRYPTION_KEY), 10_000);
    await probeBucketSource(s3, { bucket, key: sourceKey, path: "input.sourceKey", noun: "source object", runner });
    // The output keys are not known before the pipeline has run: check the prefix takes a write.
    const checkKey = `${prefix}.media-jobs-write-check`;
    try {
      await s3.putObject(bucket, checkKey, new Uint8Array(0), "application/octet-stream", 0);
      await s3.deleteObject(bucket, checkKey);
    } catch (err) {
      throw validationError(
        `output prefix is not writable: s3://${bucket}/${prefix} (${err instanceof Error ? err.message : String(err)})`,
        [
          {
            path: input.outputPrefix ? "input.outputPrefix" : "input.bucket",
            issue: err instanceof S3RedirectError ? "redirectRefused" : "outputNotWritable",
          },
        ],
      );
    }
  };
  return { source: { ...source, connectionId: source.connectionId, bucket, sourceKey }, prefix, probe };
}
