import type { Job, ProgressEntry } from "../contracts/job";
import type { StepSpec } from "../contracts/pipelines";
import { StepFailure, toStepError } from "../contracts/step-failure";
import { CancelledError, LeaseLost, type StageReporter } from "../contracts/step-kit";
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
  /**
   * Progress stages, as on the runner (contracts/step-kit.ts): after a stage, a cancel that arrived
   * throws CancelledError, which this executor answers with the cancel's acknowledgement.
   */
  report: StageReporter;
}
export type InWorkerStep = (ctx: InWorkerStepContext) => Promise<Record<string, unknown>>;

/** Reports through the JobDO's lease methods, one event at a time; learns of a cancel from each answer. */
class WorkerStageReporter implements StageReporter {
  private cancelled = false;

  constructor(
    private readonly stub: JobRpc,
    private readonly taskId: string,
    private readonly token: string,
  ) {}

  async stage<T>(name: string, fn: () => Promise<T>, details?: (result: T) => Record<string, unknown>): Promise<T> {
    this.throwIfCancelled();
    await this.post({ stage: name, event: "started" });
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      if (!(err instanceof LeaseLost)) {
        const { code, message } = toStepError(err);
        await this.post({ stage: name, event: "failed", error: { code, message } }).catch(() => undefined);
      }
      throw err;
    }
    await this.post({ stage: name, event: "completed", ...(details ? { details: details(result) } : {}) });
    this.throwIfCancelled();
    return result;
  }

  async skip(name: string, reason: string): Promise<void> {
    await this.post({ stage: name, event: "skipped", details: { reason } });
  }

  async event(entry: Omit<ProgressEntry, "at">): Promise<void> {
    await this.post(entry);
  }

  private throwIfCancelled(): void {
    if (this.cancelled) throw new CancelledError();
  }

  private async post(event: Omit<ProgressEntry, "at">): Promise<void> {
    const r = await this.stub.recordEvents(this.taskId, this.token, [event]);
    if (!r.ok)
      throw r.reason === "leaseLost" ? new LeaseLost(this.taskId, r.message) : new StepFailure("processing_failed", r.message, false);
    if (r.value.cancelRequested) this.cancelled = true;
  }
}

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
  const report = new WorkerStageReporter(stub, out.taskId, out.token);
  try {
    const result = await handler({ job: out.job, step: out.step, attempt: out.attempt, outputs: out.outputs, report });
    await stub.completeStep(out.taskId, out.token, result);
  } catch (err) {
    if (err instanceof LeaseLost) return;
    if (err instanceof CancelledError) await stub.ackCancelled(out.taskId, out.token);
    else await stub.failStep(out.taskId, out.token, toStepError(err));
  }
}
