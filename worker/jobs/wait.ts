import type { Job } from "../../contracts/job";
import { isTerminal } from "../../contracts/service-types";
import type { Env } from "../env";
import { jobStub } from "./stubs";

/**
 * Waits for a job to end, up to `waitMs`: the job once it is completed, failed or cancelled, or null
 * when it is still going at the deadline. Its Durable Object is asked, the authority, at growing
 * intervals (250 ms, then ×1.5 up to 2 s): a short job is answered soon after it ends, and a
 * minute's wait costs about forty small calls, not a subscription the object would have to keep.
 */
export async function waitForJobEnd(env: Env, jobId: string, waitMs: number, signal?: AbortSignal): Promise<Job | null> {
  const deadline = Date.now() + waitMs;
  let interval = 250;
  for (;;) {
    const job = await jobStub(env, jobId).get();
    if (job && isTerminal(job.status)) return job;
    const left = deadline - Date.now();
    if (left <= 0 || signal?.aborted) return null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(interval, left)));
    interval = Math.min(2_000, interval * 1.5);
  }
}
