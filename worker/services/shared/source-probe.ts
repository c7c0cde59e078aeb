import { bytesText } from "../../../contracts/bounded-read";
import { S3Client, S3Error, S3RedirectError } from "../../../contracts/s3-client";
import type { Settings } from "../../../contracts/settings";
import { validationError, type ApiError } from "../../errors";

/**
 * The create-time read of a job's source in a bucket (transcription, clips, thumbnails, dubbing,
 * voice samples): a ranged GET of its first bytes, at most those bytes read whatever the store
 * sends. Every way it can go wrong is a 422 on the source's detail path, never a 5xx: missing
 * (`sourceNotFound`), a redirect, which is never followed (`redirectRefused`), a size the store
 * will not state (`sourceSizeUnknown`), larger than any runner downloads (`sourceTooLarge`, so
 * a job that would fail `source_too_large` is not even charged), or unreadable (`sourceUnreadable`).
 */

export interface SourceProbe {
  bucket: string;
  key: string;
  /** The request field the source came from: `input.sourceKey`. */
  path: string;
  /** How messages name it: `source object`, `sample`. */
  noun: string;
  /** The platform's runner bounds (`runner.maxSourceBytes`). */
  runner: Pick<Settings["runner"], "maxSourceBytes">;
}

/** Bytes the probe reads: enough to prove the object is readable. */
const PROBE_BYTES = 1024;

export async function probeBucketSource(s3: S3Client, p: SourceProbe): Promise<void> {
  const where = `s3://${p.bucket}/${p.key}`;
  let size: number | null;
  try {
    ({ size } = await s3.probeObject(p.bucket, p.key, PROBE_BYTES));
  } catch (err) {
    throw probeFailure(err, p, where);
  }
  checkSourceSize(size, p.runner.maxSourceBytes, p.path, `${p.noun} ${where}`);
}

function probeFailure(err: unknown, p: SourceProbe, where: string): ApiError {
  if (err instanceof S3RedirectError)
    return validationError(
      `${p.noun} could not be read: ${where} answered with a redirect (HTTP ${err.redirectStatus ?? "3xx"}), which the service does not follow`,
      [{ path: p.path, issue: "redirectRefused" }],
    );
  const missing = err instanceof S3Error && (err.status === 404 || err.s3Code === "NoSuchKey");
  if (missing) return validationError(`${p.noun} not found: ${where}`, [{ path: p.path, issue: "sourceNotFound" }]);
  return validationError(`${p.noun} could not be read: ${err instanceof Error ? err.message : String(err)}`, [
    { path: p.path, issue: "sourceUnreadable" },
  ]);
}

/**
 * The size a source's probe learned, against the runners' download cap. A size the server would
 * not state (it ignored `Range` and sent no length, or `bytes 0-0/*`) is refused too: such a source
 * could only be measured by downloading it.
 */
export function checkSourceSize(size: number | null, maxSourceBytes: number, path: string, what: string): void {
  if (size === null)
    throw validationError(
      `${what} does not state its size (the server ignored Range and sent no length); the service needs it to bound the download`,
      [{ path, issue: "sourceSizeUnknown" }],
    );
  if (size > maxSourceBytes)
    throw validationError(`${what} is ${bytesText(size)}; at most ${bytesText(maxSourceBytes)} are accepted (runner.maxSourceBytes)`, [
      { path, issue: "sourceTooLarge" },
    ]);
}
