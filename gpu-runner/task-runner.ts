import { CancelledError, LeaseLost } from "../contracts/step-kit";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import type { LeasedTask } from "../contracts/runner-protocol";
import { StepFailure } from "../contracts/step-failure";
import type { HandlerContext, StepHandler } from "./handler";
import type { Logger } from "./log";
import { openObjectStore } from "./object-store";
import { openStorage, type StorageGuard } from "./storage";
import { ProtocolError, type CallOptions, type ProtocolClient } from "./protocol-client";
import { toStepError } from "../contracts/step-failure";
import { TaskStageReporter, isCancelled, type TaskControl } from "./stage-reporter";
import { taskPlatform } from "./task-platform";
import { runInTask, TaskScope } from "./task-scope";
import { taskDirPrefix } from "./work-dirs";
import { parseTaskData } from "./step-input";

/**
 * Runs one leased task, start to finish:
 *  1. makes a fresh work directory under the runner's work root;
 *  2. heartbeats every `task.heartbeatIntervalSec`, learning `cancelRequested` and noticing a
 *     lost lease (which aborts the work: `ctx.signal`);
 *  3. runs the handler named by `task.step.handler`;
 *  4. reports exactly one of complete / fail / cancelled, or nothing when the lease was lost or
 *     the task was released;
 *  5. always stops the heartbeat, aborts whatever the handler left running (its child processes
 *     die with `ctx.signal`) and deletes the work directory.
 *
 * Child processes: a handler must tie every child process to `ctx.signal` (see
 * child-process.ts). Aborting the signal is how the runner kills a task's processes.
 *
 * Time: the handler runs in the task's scope (task-scope.ts), so every child process and every
 * stage has the wall-clock limit of `runner.timeLimits`. A stage that was stopped (its limit, or a
 * cancel's grace of `runner.cancelGraceSeconds`) lets the handler unwind for UNWIND_GRACE_MS; a
 * handler that does not is abandoned, its work aborted, and the attempt reported all the same:
 * nothing holds the runner's slot forever.
 */

export type TaskOutcome = "completed" | "failed" | "cancelled" | "released" | "leaseLost";

export interface TaskRunDeps {
  client: ProtocolClient;
  handlers: Readonly<Record<string, StepHandler>>;
  /** RUNNER_WORK_DIR: the task's own directory is created inside it. */
  workRoot: string;
  /** Cores handed to the handler (`ctx.cores`). */
  cores: number;
  /** How `ctx.openStorage()` checks the job's storage endpoint. */
  storageGuard: StorageGuard;
  log: Logger;
}

/** Abort reason when the runner gives the task back on shutdown. */
export class TaskReleasedError extends Error {
  constructor() {
    super("task released: runner shutting down");
    this.name = "TaskReleasedError";
  }
}

const MIN_HEARTBEAT_MS = 10;
const MIN_HEARTBEAT_TIMEOUT_MS = 1_000;
/** How long a handler whose stage was stopped may take to unwind (its `finally` blocks) before it is abandoned. */
export const UNWIND_GRACE_MS = 10_000;

/** Abort reason once the task is over: whatever the handler left running is stopped. */
class TaskOverError extends Error {
  constructor() {
    super("task over");
    this.name = "TaskOverError";
  }
}

export class TaskRun {
  /** Settles when the task is over and its work directory is gone. Never rejects. */
  readonly done: Promise<TaskOutcome>;
  private readonly abort = new AbortController();
  /** What the heartbeat, the stage reporter and this run share; the run alone writes it. */
  private readonly control: TaskControl & { cancelRequested: boolean; scope: TaskScope };
  private leaseLost = false;
  private released = false;
  /** Set when the final report (complete/fail/cancelled) starts: release() no longer applies. */
  private finalizing = false;
  private settled = false;
  private workDir: string | undefined;
  private readonly startedAt = Date.now();
  private readonly cancelDeadline = new AbortController();
  private cancelTimer: NodeJS.Timeout | undefined;
  /** Rejects (with the stop's reason) once a stopped handler had UNWIND_GRACE_MS to unwind and did not. */
  private abandon: ((reason: unknown) => void) | undefined;
  private unwindTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly task: LeasedTask,
    private readonly deps: TaskRunDeps,
  ) {
    this.control = {
      taskId: task.taskId,
      leaseToken: task.leaseToken,
      cancelRequested: false,
      signal: this.abort.signal,
      // Replaced by the scope of the task's work directory once it exists (execute).
      scope: TaskScope.fromSettings("", task.settings),
      cancelDeadline: this.cancelDeadline.signal,
      requestCancel: () => this.onCancelRequested(),
      onLeaseLost: (err) => this.onLeaseLost(err),
      onStageStopped: (reason) => this.onStageStopped(reason),
    };
    this.done = this.run().finally(() => {
      this.settled = true;
    });
  }

  get taskId(): string {
    return this.task.taskId;
  }

  /** The task's work directory while it exists. */
  get currentWorkDir(): string | undefined {
    return this.workDir;
  }

  /**
   * Gives the task back to its lane (shutdown): aborts the work and posts `release`.
   * A no-op once the task is reporting its outcome, was released, or lost its lease.
   */
  async release(): Promise<void> {
    if (this.finalizing || this.leaseLost || this.released || this.settled) return;
    this.released = true;
    this.abort.abort(new TaskReleasedError());
    try {
      await this.deps.client.release(this.task.taskId, this.task.leaseToken, { retries: 2 });
      this.log("released", {});
    } catch (err) {
      if (err instanceof LeaseLost) this.log("lease_lost", { during: "release" });
      else this.log("release_failed", { error: String(err) }, "error");
    }
  }

  private async run(): Promise<TaskOutcome> {
    const heartbeat = this.startHeartbeat();
    try {
      let result: Record<string, unknown>;
      try {
        result = await this.execute();
      } catch (err) {
        return await this.finishWithError(err);
      }
      return await this.report("completed", (o) => this.deps.client.complete(this.task.taskId, this.task.leaseToken, result, o));
    } catch (err) {
      // Only reachable through a bug in reporting; never let a task crash the runner.
      this.log("internal_error", { error: String(err) }, "error");
      return "failed";
    } finally {
      heartbeat.stop();
      clearTimeout(this.cancelTimer);
      clearTimeout(this.unwindTimer);
      if (!this.abort.signal.aborted) this.abort.abort(new TaskOverError());
      await this.cleanup();
    }
  }

  private async execute(): Promise<Record<string, unknown>> {
    await mkdir(this.deps.workRoot, { recursive: true });
    this.workDir = await mkdtemp(path.join(this.deps.workRoot, taskDirPrefix(this.task.taskId)));
    this.control.scope = TaskScope.fromSettings(this.workDir, this.task.settings);

    const name = this.task.step.handler;
    const handler = Object.hasOwn(this.deps.handlers, name) ? this.deps.handlers[name] : undefined;
    if (!handler) throw new StepFailure("processing_failed", `no handler "${name}" on this runner`, true);

    const ctx: HandlerContext = {
      task: this.task,
      ...parseTaskData(this.task),
      report: new TaskStageReporter(this.deps.client, this.control),
      workDir: this.workDir,
      signal: this.abort.signal,
      cores: this.deps.cores,
      openStorage: () => openStorage(this.task.storage, this.deps.storageGuard),
      openObjects: (keys) => openObjectStore(this.task, this.deps.storageGuard, keys),
      platform: taskPlatform(this.deps.client, this.task, this.abort.signal),
    };
    const abandoned = new Promise<never>((_resolve, reject) => (this.abandon = reject));
    const work = runInTask(this.control.scope, () => handler(ctx));
    // Awaited below unless abandoned; a failure it ends with after that is of no interest.
    work.catch(() => undefined);
    return await Promise.race([work, abandoned]);
  }

  private async finishWithError(err: unknown): Promise<TaskOutcome> {
    if (isCancelled(err)) {
      return this.report("cancelled", (o) => this.deps.client.cancelled(this.task.taskId, this.task.leaseToken, o));
    }
    const error = toStepError(err);
    return this.report("failed", (o) => this.deps.client.fail(this.task.taskId, this.task.leaseToken, error, o), {
      code: error.code,
      retryable: error.retryable,
      message: error.message,
    });
  }

  private async report(
    outcome: "completed" | "failed" | "cancelled",
    call: (o: CallOptions) => Promise<void>,
    fields: Record<string, unknown> = {},
  ): Promise<TaskOutcome> {
    if (this.leaseLost) return "leaseLost";
    if (this.released) return "released";
    this.finalizing = true;
    const event = outcome === "completed" ? "complete" : outcome === "failed" ? "fail" : "cancelled";
    try {
      await call({});
      this.log(event, { ...fields, durationMs: Date.now() - this.startedAt });
      return outcome;
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.leaseLost = true;
        this.log("lease_lost", { during: event });
        return "leaseLost";
      }
      if (outcome === "completed" && err instanceof ProtocolError && err.status === 422) {
        // The Worker refused the result (it names something that is not the job's own): the lease
        // still stands, so the task fails now, not retried, rather than waiting out the lease.
        const error = { code: "processing_failed", message: `the service refused the step's result: ${err.message}`, retryable: false };
        this.log("result_refused", { code: err.code, message: err.message }, "error");
        return this.report("failed", (o) => this.deps.client.fail(this.task.taskId, this.task.leaseToken, error, o), {
          code: error.code,
          retryable: false,
        });
      }
      // The lease will expire on the server, which then counts the attempt as runner_lost.
      this.log("report_failed", { report: event, ...fields, error: String(err) }, "error");
      return outcome;
    }
  }

  /** Graceful: the running stage may finish; one still running after the grace is stopped. */
  private onCancelRequested(): void {
    if (this.control.cancelRequested || this.abort.signal.aborted) return;
    this.control.cancelRequested = true;
    this.log("cancel_requested", { graceSeconds: this.control.scope.cancelGraceSec });
    this.cancelTimer = setTimeout(() => {
      this.log("cancel_grace_elapsed", {}, "warn");
      this.cancelDeadline.abort(new CancelledError());
      this.onStageStopped(this.cancelDeadline.signal.reason);
    }, this.control.scope.cancelGraceSec * 1000);
    this.cancelTimer.unref?.();
  }

  /** The handler has UNWIND_GRACE_MS to settle after a stage was stopped; then it is abandoned. */
  private onStageStopped(reason: unknown): void {
    if (this.unwindTimer !== undefined || this.settled) return;
    this.unwindTimer = setTimeout(() => {
      this.log("handler_abandoned", { reason: String(reason) }, "error");
      this.abandon?.(reason);
    }, UNWIND_GRACE_MS);
    this.unwindTimer.unref?.();
  }

  private onLeaseLost(err: LeaseLost): void {
    if (this.leaseLost || this.finalizing || this.released) return;
    this.leaseLost = true;
    this.log("lease_lost", { message: err.message }, "warn");
    this.abort.abort(err);
  }

  private startHeartbeat(): { stop(): void } {
    const intervalMs = Math.max(MIN_HEARTBEAT_MS, this.task.heartbeatIntervalSec * 1000);
    const stopper = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const beat = async (): Promise<void> => {
      if (stopper.signal.aborted || this.abort.signal.aborted) return;
      try {
        // A beat that hangs is given up when the next one is due, so its retry still lands well
        // inside the lease (the client's 15 s default would outlast a 20 s lease's margin).
        const res = await this.deps.client.heartbeat(this.task.taskId, this.task.leaseToken, {
          signal: stopper.signal,
          retries: 1,
          timeoutMs: Math.max(MIN_HEARTBEAT_TIMEOUT_MS, intervalMs),
        });
        if (res.cancelRequested) this.onCancelRequested();
      } catch (err) {
        if (stopper.signal.aborted) return;
        if (err instanceof LeaseLost) return this.onLeaseLost(err);
        // Transient: the next beat may get through well before the lease runs out.
        this.log("heartbeat_failed", { error: String(err) }, "warn");
      }
      if (!stopper.signal.aborted && !this.abort.signal.aborted) timer = setTimeout(() => void beat(), intervalMs);
    };
    timer = setTimeout(() => void beat(), intervalMs);
    return {
      stop: () => {
        stopper.abort();
        clearTimeout(timer);
      },
    };
  }

  private async cleanup(): Promise<void> {
    const dir = this.workDir;
    if (dir === undefined) return;
    try {
      await rm(dir, { recursive: true, force: true, maxRetries: 3 });
      this.workDir = undefined;
    } catch (err) {
      this.log("cleanup_failed", { workDir: dir, error: String(err) }, "error");
    }
  }

  private log(event: string, fields: Record<string, unknown>, level: "info" | "warn" | "error" = "info"): void {
    this.deps.log(level, event, {
      taskId: this.task.taskId,
      jobId: this.task.jobId,
      attempt: this.task.attempt,
      handler: this.task.step.handler,
      ...fields,
    });
  }
}
