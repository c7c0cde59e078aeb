import type { Job } from "../client";

/** The tool's exit codes; `--help` and docs/api.md list them. */
export const EXIT = {
  ok: 0,
  /** The job failed (or the command failed locally, e.g. a file could not be written). */
  failed: 1,
  usage: 2,
  cancelled: 3,
  timedOut: 4,
  /** The API refused the call (401/403/404/422/5xx…) or could not be reached. */
  api: 5,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export const EXIT_CODES_HELP = `
Exit codes:
  0  success; for submit --wait and wait: the job completed
  1  the job failed (or a local error, e.g. a file could not be written)
  2  usage error (unknown option, missing argument, bad value)
  3  the job was cancelled
  4  timed out waiting (--timeout)
  5  API or authentication error, or the API could not be reached
`;

/** A waited-for job's outcome as an exit code. */
export function exitForJob(job: Job): ExitCode {
  if (job.status === "failed") return EXIT.failed;
  if (job.status === "cancelled") return EXIT.cancelled;
  return EXIT.ok;
}

/** Bad input from the command line, found after commander parsed it. */
export class UsageError extends Error {
  override name = "UsageError";
}
