import { createWriteStream } from "node:fs";
import { rm, statfs } from "node:fs/promises";
import { dirname } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { bytesText, declaredLength } from "../../contracts/bounded-read";
import { INSUFFICIENT_DISK } from "../../contracts/services/types";
import { StepFailure } from "../../contracts/step-failure";

/**
 * Saving a customer-controlled answer (a source, a logo, an engine's output file) to the work
 * directory without letting it fill the disk: its declared size is checked against the cap and the
 * free disk before a byte is written, and the stream is counted and cut off at the cap. Whatever
 * fails, the partial file is deleted.
 */

/** What one download may take (platform settings `runner.maxSourceBytes`, `runner.minFreeDiskBytes`). */
export interface DownloadLimits {
  /** Largest body accepted; past it the download stops and fails `source_too_large`. */
  maxBytes: number;
  /** Free disk kept beyond the body's declared size; short of it the download fails `insufficient_disk` (retried elsewhere). */
  minFreeDiskBytes: number;
  /** Names the bound in messages. Default `runner.maxSourceBytes`. */
  setting?: string;
  /** The failure of a body over the cap, given its message. Default `source_too_large`, final. */
  tooLarge?: (message: string) => StepFailure;
}

/** The free bytes of the filesystem holding `dir`, for an unprivileged process. */
async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

/**
 * Fails `insufficient_disk` (retryable: another runner may have the room) when the work directory's
 * filesystem has less than `needed` bytes plus the margin free.
 */
export async function requireFreeDisk(dir: string, needed: number, limits: DownloadLimits, what: string): Promise<void> {
  const free = await freeBytes(dir);
  if (free >= needed + limits.minFreeDiskBytes) return;
  throw new StepFailure(
    INSUFFICIENT_DISK,
    // How much is free is the operator's business: the message says only what was needed.
    `not enough free disk on this runner for ${what}: ${needed > 0 ? `${bytesText(needed)} needed plus ` : ""}${bytesText(limits.minFreeDiskBytes)} kept free (runner.minFreeDiskBytes); another runner may take the retry`,
    true,
  );
}

class TooLarge extends Error {}

function tooLarge(what: string, bytes: number, declared: boolean, limits: DownloadLimits): StepFailure {
  const seen = declared ? `declares ${bytesText(bytes)}` : `is larger: more than ${bytesText(bytes)} arrived`;
  const message = `${what} ${seen}; at most ${bytesText(limits.maxBytes)} are accepted (${limits.setting ?? "runner.maxSourceBytes"})`;
  return limits.tooLarge ? limits.tooLarge(message) : new StepFailure("source_too_large", message, false);
}

/**
 * Streams an answer's body to `path` within the limits: a declared length over the cap fails before
 * a byte is written, the free disk is checked against the declared length, and a body that goes on
 * past the cap stops there. Whatever fails, the partial file is deleted. Resolves to the bytes written.
 * `what` names the object (`bucket/key`, a redacted URL).
 */
export async function saveBody(
  res: Response,
  path: string,
  limits: DownloadLimits,
  signal: AbortSignal,
  what: string,
  /** What a stream cut off mid-way rejects with; default a retryable `processing_failed`. */
  interrupted: (err: Error) => Error = (err) =>
    new StepFailure("processing_failed", `download of ${what} was interrupted: ${err.message}`, true),
): Promise<number> {
  const declared = declaredLength(res);
  try {
    if (declared !== null && declared > limits.maxBytes) throw tooLarge(what, declared, true, limits);
    await requireFreeDisk(dirname(path), declared ?? 0, limits, what);
  } catch (err) {
    await res.body?.cancel().catch(() => undefined);
    throw err;
  }
  if (!res.body) throw new StepFailure("processing_failed", `download of ${what} returned no body`, true);
  let written = 0;
  const cap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      written += chunk.byteLength;
      if (written > limits.maxBytes) done(new TooLarge());
      else done(null, chunk);
    },
  });
  try {
    // A failed pipeline destroys its source too: the response stream is cancelled, the connection closed.
    await pipeline(Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>), cap, createWriteStream(path), { signal });
  } catch (err) {
    await rm(path, { force: true });
    if (err instanceof TooLarge) throw tooLarge(what, limits.maxBytes, false, limits);
    if (signal.aborted) throw err;
    throw interrupted(err as Error);
  }
  return written;
}
