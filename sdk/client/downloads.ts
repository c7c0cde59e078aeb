import type { S3Client } from "../../contracts/s3-client";
import type { ClipGenerationRecord, Job, TranscriptOutputKeys, TranscriptRecord } from "./types";

/**
 * Outputs live in the customer's bucket, not behind the API: these helpers name the objects a job
 * wrote (from the Job's `input.resolvedOutputKeys`, the transcript's `outputKeys`, the clip
 * generation's `clips[]`) and fetch them through an S3 client the caller configures with its own
 * bucket credentials (contracts/s3-client.ts: aws4fetch, so it runs in Node, browsers and Workers).
 */
export interface OutputObject {
  bucket: string;
  key: string;
  /** What it is: `srt`, `vtt`, `fullText`, `segments`, `clip-00.mp4`'s `video`/`poster` … */
  kind: string;
  /** The key's last segment, a file name to save it under. */
  fileName: string;
}

const fileNameOf = (key: string): string => key.split("/").filter(Boolean).at(-1) ?? key;

const output = (bucket: string, key: string, kind: string): OutputObject => ({ bucket, key, kind, fileName: fileNameOf(key) });

/** The four transcription files of a transcription Job (known from create on). */
export function transcriptionJobOutputs(job: Job): OutputObject[] {
  const keys = job.input["resolvedOutputKeys"] as TranscriptOutputKeys | undefined;
  const bucket = job.input["bucket"];
  if (job.serviceType !== "transcription" || !keys || typeof bucket !== "string") return [];
  return Object.entries(keys).map(([kind, key]) => output(bucket, key, kind));
}

/** The four files of a transcript record. They hold the transcript as transcribed: later segment edits are not written back. */
export function transcriptOutputs(t: TranscriptRecord): OutputObject[] {
  if (!t.outputKeys || !t.source) return [];
  const bucket = t.source.bucket;
  return Object.entries(t.outputKeys).map(([kind, key]) => output(bucket, key, kind));
}

/** Each clip's MP4 and poster JPEG. `bucket` is the clip job's `input.bucket`. */
export function clipOutputs(record: ClipGenerationRecord, bucket: string): OutputObject[] {
  return record.clips.flatMap((clip) => [output(bucket, clip.videoKey, "video"), output(bucket, clip.posterKey, "poster")]);
}

/** GETs one output object; the body streams (`res.body`), so large MP4s need not fit in memory. */
export function fetchOutput(s3: S3Client, object: OutputObject, timeoutMs = 300_000): Promise<Response> {
  return s3.getObject(object.bucket, object.key, timeoutMs);
}

/**
 * Fetches each object in turn and hands it to `save` (write it to disk, to another bucket, …).
 * Sequential on purpose: clips are large, and one stream at a time keeps memory flat.
 */
export async function downloadOutputs(
  s3: S3Client,
  objects: readonly OutputObject[],
  save: (object: OutputObject, res: Response) => Promise<void>,
): Promise<void> {
  for (const object of objects) await save(object, await fetchOutput(s3, object));
}
