import type { Job, ProgressEntry } from "../contracts/job";
import type { StepSpec } from "../contracts/pipelines";
import { StepFailure, toStepError } from "../contracts/step-failure";
import { LeaseLost } from "../contracts/step-kit";
import type { JobRpc, StepStart } from "../durable-objects/job-do";

/**
 * The in-Worker executor: steps with executor `worker` run here, inside the dispatch consumer
 * (light work: language-model calls, database work). They report through the same JobDO lease
 * methods a runner uses, and fail with the same `StepFailure` (contracts/step-failure.ts).
 */
export interface InWorkerStepContext {
  job: Job;
  step: StepSpec;
  attempt: number;
  /** Outputs of the steps before this one, by step name. */
  outputs: Record<string, Record<string, unknown>>;
  /** Runs one progress stage; returns false when a cancel arrived (stop after this stage). */
  stage: (name: string, fn: () => Promise<Record<string, unknown> | void>) => Promise<boolean>;
}
export type InWorkerStep = (ctx: InWorkerStepContext) => Promise<Record<string, unknown>>;

export async function runWorkerStep(
  stub: JobRpc,
  handler: InWorkerStep | null,
  out: StepStart & { taskId: string; token: string },
): Promise<void> {
  if (!handler) {
    await stub.failStep(out.taskId, out.token, {
      code: "processing_failed",
      message: `no worker handler ${out.step.handler} for ${out.step.service}`,
      retryable: false,
    });
    return;
  }
  let cancelled = false;
  const report = async (events: Array<Omit<ProgressEntry, "at">>) => {
    const r = await stub.recordEvents(out.taskId, out.token, events);
    if (!r.ok)
      throw r.reason === "leaseLost" ? new LeaseLost(out.taskId, r.message) : new StepFailure("processing_failed", r.message, false);
    cancelled = r.value.cancelRequested;
  };
  const stage: InWorkerStepContext["stage"] = async (name, fn) => {
    await report([{ stage: name, event: "started" }]);
    try {
      const details = await fn();
      await report([{ stage: name, event: "completed", ...(details ? { details } : {}) }]);
    } catch (err) {
      if (!(err instanceof LeaseLost)) {
        const { code, message } = toStepError(err);
        await report([{ stage: name, event: "failed", error: { code, message } }]).catch(() => undefined);
      }
      throw err;
    }
    return !cancelled;
  };
  try {
    const result = await handler({ job: out.job, step: out.step, attempt: out.attempt, outputs: out.outputs, stage });
    if (cancelled) await stub.ackCancelled(out.taskId, out.token);
    else await stub.completeStep(out.taskId, out.token, result);
  } catch (err) {
    if (err instanceof LeaseLost) return;
    await stub.failStep(out.taskId, out.token, toStepError(err));
  }
}
