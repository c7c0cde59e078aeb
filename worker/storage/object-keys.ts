import type { JobError } from "../../contracts/job";
import { hasDotSegment } from "../../contracts/request-fields";

/**
 * Object keys that come back from a runner (rendered clips, thumbnails, dubbing artifacts, a voice's
 * reference clip, scratch objects) are checked as a client's keys are at create before the service
 * stores them, streams them or deletes them: a `.`/`..` segment would name another key or bucket.
 */

/** The first key with a dot segment, by where the result held it, as the step's failure; null when all are plain. */
export function reportedKeysRefusal(what: string, keys: Iterable<readonly [where: string, key: string]>): JobError | null {
  for (const [where, key] of keys) {
    if (hasDotSegment(key))
      return { code: "processing_failed", message: `runner returned an invalid ${what} result at ${where}: the key has a . or .. segment` };
  }
  return null;
}

/** A key's path segments; `a/b/` and `a/b` name the same folder. */
const segments = (key: string): string[] => key.split("/").filter((s, i, all) => s !== "" || i < all.length - 1);

/**
 * Whether `key` lies inside the folder `prefix`, compared segment by segment: a key with a `.`/`..`
 * segment is never inside, whatever its text starts with (`_media-jobs/scratch/job_1/../../x`).
 */
export function isUnderPrefix(key: string, prefix: string): boolean {
  if (hasDotSegment(key)) return false;
  const folder = segments(prefix);
  const parts = segments(key);
  return parts.length > folder.length && folder.every((s, i) => parts[i] === s);
}
