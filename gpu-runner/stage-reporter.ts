import { CancelledError, LeaseLost, type StageReporter } from "../contracts/step-kit";
import type { ProgressEntry } from "../contracts/job";
import { untilAborted } from "../contracts/retry";
import { toStepError } from "../contracts/step-failure";
import type { ProgressEventInput, ProtocolClient } from "./protocol-client";
import { runInStage, timeoutFailure, watchDeadline, type TaskScope } from "./task-scope";

/**
 * State shared by one task's heartbeat loop, stage reporter and task runner.
 * `cancelRequested` is learned from heartbeat and events answers (`requestCancel`); `signal` is the
 * work's abort signal, aborted when the lease is lost, the task is being released or is over: once
 * it is aborted, nothing more is reported for the task.
 */
export interface TaskControl {
  readonly taskId: string;
  readonly leaseToken: string;
  readonly cancelRequested: boolean;
  readonly signal: AbortSignal;
  /** The task's limits (task-scope.ts): every stage's wall-clock limit comes from them. */
  readonly scope: TaskScope;
  /** Aborted (with a CancelledError) once a requested cancel's grace has passed: the running stage is stopped then. */
  readonly cancelDeadline: AbortSignal;
  /** A heartbeat or events answer said `cancelRequested`. */
  requestCancel(): void;
  /** Called when a report answers 409 leaseLost; aborts the work. */
  onLeaseLost(err: LeaseLost): void;
  /** A stage was stopped (its time limit, a cancel's grace): the handler is expected to unwind now. */
  onStageStopped(reason: unknown): void;
}

export function isCancelled(err: unknown): err is CancelledError {
  return err instanceof CancelledError || (err instanceof Error && err.name === "CancelledError");
}

/**
 * The StageReporter handed to handlers. Events are posted one at a time, in order, so the
 * server's progress timeline matches what the handler did; only a stage's "started" overlaps
 * the stage's own work.
 *
 * Every stage has a wall-clock limit (`runner.timeLimits`: base + per second of the source once
 * it is measured; task-scope.ts). When it passes, or when a cancel was requested and its grace
 * has passed, the stage is stopped: its child processes are killed (child-process.ts), its work is
 * no longer waited for, and it fails `processing_timeout` (or ends in a cancel), so no stuck tool,
 * engine or promise holds the runner's slot.
 */
export class TaskStageReporter implements StageReporter {
  constructor(
    private readonly client: ProtocolClient,
    private readonly control: TaskControl,
  ) {}

  private tail: Promise<void> = Promise.resolve();

  async stage<T>(name: string, fn: () => Promise<T>, details?: (result: T) => Record<string, unknown>): Promise<T> {
    // A cancel learned between stages stops the task before the next stage starts.
    this.throwIfCancelled();
    // The work starts while "started" is on its way (one round trip less per stage); it is
    // acknowledged before anything else is posted, so the timeline keeps its order.
    const started = this.post({ stage: name, event: "started" });
    // A failed "started" (lease lost, release) has already aborted the work's signal; its
    // rejection is read below, never left unhandled.
    started.catch(() => undefined);
    const { scope, cancelDeadline } = this.control;
    const stop = new AbortController();
    const unwatch = watchDeadline(
      Date.now(),
      () => scope.limitSec() * 1000,
      (elapsed) => stop.abort(timeoutFailure(`stage ${name}`, elapsed, scope)),
    );
    const onCancelDeadline = () => stop.abort(cancelDeadline.reason);
    cancelDeadline.addEventListener("abort", onCancelDeadline, { once: true });
    let result: T;
    try {
      result = await untilAborted(
        runInStage(name, stop.signal, () => fn()),
        stop.signal,
      );
      await started;
    } catch (err) {
      await started.catch(() => undefined);
      if (stop.signal.aborted) this.control.onStageStopped(stop.signal.reason);
      // Lost lease or release: the server no longer wants to hear from this task.
      // A cancel raised by a nested stage already ended cleanly: pass it through.
      if (!this.control.signal.aborted && !isCancelled(err)) {
        const { code, message } = toStepError(err);
        await this.post({ stage: name, event: "failed", error: { code, message } }).catch(() => undefined);
      }
      throw err;
    } finally {
      unwatch();
      cancelDeadline.removeEventListener("abort", onCancelDeadline);
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
    if (this.control.cancelRequested) throw new CancelledError();
  }

  /** Posts one after another, whoever calls: an event never overtakes the "started" still on its way. */
  private post(entry: ProgressEventInput): Promise<void> {
    const at = new Date().toISOString();
    const sent = this.tail.then(() => this.send({ ...entry, at }));
    this.tail = sent.catch(() => undefined);
    return sent;
  }

  private async send(entry: ProgressEventInput): Promise<void> {
    if (this.control.signal.aborted) throw this.control.signal.reason ?? new Error("task aborted");
    try {
      const res = await this.client.events(this.control.taskId, this.control.leaseToken, [entry], {
        signal: this.control.signal,
      });
      if (res.cancelRequested) this.control.requestCancel();
    } catch (err) {
      if (err instanceof LeaseLost) this.control.onLeaseLost(err);
      throw err;
    }
  }
}
