import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { S3Client, S3Error, S3KeyError, S3RedirectError } from "../contracts/s3-client";
import { isStepFailure } from "../contracts/step-failure";
import { StepFailure } from "../contracts/step-failure";
import { saveBody, type DownloadLimits } from "./net/save-body";

export { saveBody, type DownloadLimits } from "./net/save-body";

/**
 * Reading sources from and writing results to the customer's bucket, with the failure codes every
 * service reports the same way: a missing or forbidden source is final, a redirect is refused
 * (final), anything else retryable. Every download is bounded (`DownloadLimits`): its size, and
 * the disk it would fill.
 */

/** Downloads are single streamed GETs; the S3 client's default 30 s would cut off a large source. */
const DOWNLOAD_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * The failure a bucket operation ends in, whatever went wrong: refusals of the runner's own
 * (`storage_endpoint_refused`, an unsafe key) and a redirect are final; `what` names the operation.
 */
export function bucketFailure(err: unknown, what: string): StepFailure {
  if (isStepFailure(err)) return err;
  if (err instanceof S3RedirectError)
    return new StepFailure(
      "redirect_refused",
      `${what} was refused: the store answered with a redirect (HTTP ${err.redirectStatus ?? "3xx"}), which the runner does not follow`,
      false,
    );
  if (err instanceof S3KeyError) return new StepFailure("invalid_input", `${what}: ${err.message}`, false);
  const status = err instanceof S3Error ? err.status : 0;
  return new StepFailure("processing_failed", `${what} failed: ${(err as Error).message}`, status === 0 || status >= 500 || status === 429);
}

export async function downloadObject(
  s3: S3Client,
  bucket: string,
  key: string,
  path: string,
  signal: AbortSignal,
  limits: DownloadLimits,
): Promise<number> {
  let res: Response;
  try {
    res = await s3.getObject(bucket, key, DOWNLOAD_TIMEOUT_MS);
  } catch (err) {
    if (err instanceof S3Error && !(err instanceof S3RedirectError) && err.status === 404)
      throw new StepFailure("source_not_found", `source object ${bucket}/${key} does not exist`, false);
    if (err instanceof S3Error && (err.status === 403 || err.status === 401)) {
      throw new StepFailure("source_access_denied", `reading ${bucket}/${key} was refused (HTTP ${err.status})`, false);
    }
    throw bucketFailure(err, `download of ${bucket}/${key}`);
  }
  return saveBody(res, path, limits, signal, `${bucket}/${key}`);
}

/** An output's content: small text or bytes in memory, or a file streamed from disk. */
export type UploadBody = string | Uint8Array | { path: string };

/** A single PUT of a large file may take long; the lease's heartbeats keep the job alive meanwhile. */
const UPLOAD_TIMEOUT_MS = 60 * 60 * 1000;

/** Writes `body` at `key`; a file goes as a stream with its length, never read whole into memory. */
export async function uploadObject(s3: S3Client, bucket: string, key: string, body: UploadBody, contentType: string): Promise<void> {
  try {
    if (typeof body === "string" || body instanceof Uint8Array) {
      await s3.putObject(bucket, key, body as string | Uint8Array<ArrayBuffer>, contentType);
    } else {
      const { size } = await stat(body.path);
      const stream = Readable.toWeb(createReadStream(body.path)) as ReadableStream<Uint8Array>;
      await s3.putObjectStream(bucket, key, stream, size, contentType, UPLOAD_TIMEOUT_MS);
    }
  } catch (err) {
    throw bucketFailure(err, `upload of ${bucket}/${key}`);
  }
}

/** Runs a media tool step: a failure that is not already a StepFailure is a retryable processing failure. */
export async function toolStep<T>(signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StepFailure || signal.aborted) throw err;
    throw new StepFailure("processing_failed", (err as Error).message, true);
  }
}
