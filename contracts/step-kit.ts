import type { JobError, ProgressEntry } from "./job";

/**
 * The vocabulary of running one step, shared by both executors (the runner, gpu-runner/; the
 * in-Worker executor, queues/worker-steps.ts): how a step reports its stages, how a cancel stops it,
 * how a lost lease ends it, and what the step's sink makes of its result.
 */

/**
 * What a step's code sees of progress reporting. `stage` reports `started`, then `completed` (with
 * the details `fn`'s result maps to) or `failed`. After the stage ends it throws CancelledError if a
 * cancel arrived, which is how a graceful cancel stops work "after the current pipeline stage" on
 * either executor; the executor reports the cancel.
 */
export interface StageReporter<Stage extends string = string> {
  stage<T>(name: Stage, fn: () => Promise<T>, details?: (result: T) => Record<string, unknown>): Promise<T>;
  /** Reports a stage that did not run (`skipped`), with the reason in details. */
  skip(name: Stage, reason: string): Promise<void>;
  /** Reports a raw event (rarely needed; prefer stage/skip). */
  event(entry: Omit<ProgressEntry, "at"> & { stage: Stage }): Promise<void>;
}

/** A cancel arrived: the step stops after its current stage (thrown by StageReporter.stage). */
export class CancelledError extends Error {
  constructor() {
    super("cancel requested");
    this.name = "CancelledError";
  }
}

/** The step's lease is gone (expired, taken over, or its token refused): nothing more is reported for it. */
export class LeaseLost extends Error {
  constructor(
    readonly taskId: string,
    message = "lease lost",
  ) {
    super(`task ${taskId}: ${message}`);
    this.name = "LeaseLost";
  }
}

/**
 * A step's result as its service's sink made it: its part of the job's `resultSummary`, its output
 * for later steps (small JSON, kept by the JobDO), and the scratch objects it wrote (deleted when the
 * job ends); or the error the job fails with.
 */
export type StepApplied =
  { ok: true; summary: Record<string, unknown>; output?: Record<string, unknown>; artifacts?: string[] } | { ok: false; error: JobError };
