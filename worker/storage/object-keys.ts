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

/**
 * Whether `key` names an object strictly inside the folder `prefix` (with or without its trailing
 * `/`) and nothing after the prefix can climb out or be read another way: no empty, `.` or `..`
 * segment (URLs normalise those into another key, or another bucket: `_media-jobs/scratch/job_1/../../x`),
 * no backslash or control character. The one check for every key a runner reports and every
 * scratch key the service deletes.
 */
export function isUnderPrefix(key: string, prefix: string): boolean {
  if (prefix === "") return false;
  const folder = prefix.endsWith("/") ? prefix : `${prefix}/`;
  if (!key.startsWith(folder) || key.length === folder.length) return false;
  if (/[\u0000-\u001f\u007f\\]/.test(key)) return false;
  return key
    .slice(folder.length)
    .split("/")
    .every((segment) => segment !== "" && segment !== "." && segment !== "..");
}

export function extensionOf(key: string): string {
  const name = key.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

export function displayNameOf(key: string): string {
  const name = key.split("/").pop() ?? key;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}
