import type { Job } from "../../../contracts/job";
import { PRESIGNED_SOURCE_TYPE } from "../../../contracts/presigned";
import { ApiError, type ErrorDetail } from "../../errors";
import { scratchPrefix } from "../../storage/scratch";
import { isUnderPrefix } from "../../storage/object-keys";

/**
 * What a runner reports is checked against its task before it is stored: object keys lie inside the
 * job's own output prefix (or its scratch prefix), a presigned job's outputs are its own URLs, and
 * ids are the job's own. A runner that reports anything else (a bug, or a compromised GPU box
 * naming another job's objects) is refused with 422 `protocolError`; the runner then fails the task.
 */

export function refused(message: string, detail: ErrorDetail): ApiError {
  return new ApiError("protocolError", message, [detail]);
}

/** The scratch objects a step reports must be the job's own (they are deleted when the job ends). */
export function requireScratchKeys(job: Job, keys: readonly string[], path: string): void {
  const prefix = scratchPrefix(job.jobId);
  keys.forEach((key, i) => {
    if (!isUnderPrefix(key, prefix))
      throw refused(`${path}.${i} (${key}) is not under the job's scratch prefix ${prefix}`, {
        path: `${path}.${i}`,
        issue: "outsideJobPrefix",
      });
  });
}

export const isPresigned = (job: Job): boolean => job.input["sourceType"] === PRESIGNED_SOURCE_TYPE;

/** A presigned job's URLs of one output (a name, or a kind of the variable-count scheme), redacted as the job shows them. */
function presignedOutputs(job: Job, name: string): string[] {
  const urls = (job.input["outputUrls"] ?? {}) as Record<string, unknown>;
  const v = Object.hasOwn(urls, name) ? urls[name] : undefined;
  if (typeof v === "string") return [v];
  return Array.isArray(v) ? v.filter((u): u is string => typeof u === "string") : [];
}

/**
 * Where one kind of a job's output may be: under `prefix` in the job's bucket, or for a presigned
 * job one of the URLs it gave for `outputName` (what the runner reports is the URL redacted).
 */
export function requireOwnOutput(job: Job, value: string, where: { prefix: string; outputName: string }, path: string): void {
  if (isPresigned(job)) {
    if (!presignedOutputs(job, where.outputName).includes(value))
      throw refused(`${path} (${value}) is not one of the job's outputUrls.${where.outputName}`, { path, issue: "notJobOutput" });
    return;
  }
  if (!isUnderPrefix(value, where.prefix))
    throw refused(`${path} (${value}) is not under the job's output prefix ${where.prefix}`, { path, issue: "outsideJobPrefix" });
}

/** An id the result names must be the one the job was created with. */
export function requireJobsOwn(reported: unknown, expected: unknown, path: string): void {
  if (reported !== expected)
    throw refused(`${path} is ${JSON.stringify(reported)}; the job's is ${JSON.stringify(expected)}`, { path, issue: "notTheJobs" });
}

/** A string field of the job's input (set at create), e.g. its `resolvedOutputPrefix`. */
export function inputString(job: Job, name: string): string {
  const v = job.input[name];
  return typeof v === "string" ? v : "";
}
