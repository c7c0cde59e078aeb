import type { ProgressEntry } from "../contracts/job";
import type { StepSpec } from "../contracts/pipelines";
import type { Job } from "../contracts/job";
import type { Env } from "../worker/env";
import { jobStub } from "../worker/jobs/stubs";

/**
 * Steps with executor `worker` run here, inside the dispatch consumer (light work: language-model
 * calls, database work). They report through the same JobDO lease methods a runner uses.
 */
interface WorkerStepContext {
  job: Job;
  step: StepSpec;
  attempt: number;
  /** Runs one progress stage; returns false when a cancel arrived (stop after this stage). */
  stage: (name: string, fn: () => Promise<Record<string, unknown> | void>) => Promise<boolean>;
}

type WorkerStepHandler = (ctx: WorkerStepContext) => Promise<Record<string, unknown>>;

class StepError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** Test-only (ALLOW_TEST_PIPELINES): walks the step's stages, failing while attempt < failAttempts. */
const testWork: WorkerStepHandler = async ({ job, step, attempt, stage }) => {
  const failAttempts = Number(step.params["failAttempts"] ?? 0);
  for (const name of step.stages) {
    const goOn = await stage(name, async () => {
      if (attempt < failAttempts) throw new StepError(String(step.params["failCode"] ?? "processing_failed"), `test failure on attempt ${attempt}`, step.params["failRetryable"] !== false);
    });
    if (!goOn) return { cancelled: true };
  }
  return { echo: job.input, attempt, executor: "worker" };
};

const HANDLERS: Record<string, WorkerStepHandler> = { "test.work": testWork };

export async function runWorkerStep(env: Env, out: { taskId: string; token: string; step: StepSpec; job: Job; attempt: number }): Promise<void> {
  const stub = jobStub(env, out.job.jobId);
  const handler = HANDLERS[out.step.handler];
  if (!handler) {
    await stub.failStep(out.taskId, out.token, { code: "processing_failed", message: `no worker handler ${out.step.handler}`, retryable: false });
    return;
  }
  let cancelled = false;
  const report = async (events: Array<Omit<ProgressEntry, "at">>) => {
    const r = await stub.recordEvents(out.taskId, out.token, events);
    if (!r.ok) throw new StepError("lease_lost", r.message, false);
    cancelled = r.value.cancelRequested;
  };
  const stage: WorkerStepContext["stage"] = async (name, fn) => {
    await report([{ stage: name, event: "started" }]);
    try {
      const details = await fn();
      await report([{ stage: name, event: "completed", ...(details ? { details } : {}) }]);
    } catch (err) {
      const code = err instanceof StepError ? err.code : "processing_failed";
      await report([{ stage: name, event: "failed", error: { code, message: err instanceof Error ? err.message : String(err) } }]);
      throw err;
    }
    return !cancelled;
  };
  try {
    const result = await handler({ job: out.job, step: out.step, attempt: out.attempt, stage });
    if (cancelled) await stub.ackCancelled(out.taskId, out.token);
    else await stub.completeStep(out.taskId, out.token, result);
  } catch (err) {
    if (err instanceof StepError && err.code === "lease_lost") return;
    const code = err instanceof StepError ? err.code : "processing_failed";
    const retryable = err instanceof StepError ? err.retryable : true;
    await stub.failStep(out.taskId, out.token, { code, message: err instanceof Error ? err.message : String(err), retryable });
  }
}
