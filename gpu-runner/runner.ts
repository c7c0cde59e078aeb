import { rmSync } from "node:fs";
import type { LeasedTask } from "../contracts/runner-protocol";
import type { RunnerConfig } from "./config";
import type { StepHandler } from "./handler";
import { jsonLogger, type Logger } from "./log";
import { ProtocolClient } from "./protocol-client";
import { TaskRun } from "./task-runner";
import { sweepLeftovers } from "./work-dirs";

/**
 * The runner loop. Leases up to `concurrency` tasks at once from the configured lanes, for the
 * handlers it has; backs off exponentially (with jitter) while every lane is empty and polls
 * again at once after getting work. `shutdown()` stops leasing, lets running tasks finish for up
 * to `shutdownGraceMs`, then releases the ones still running (their work is aborted) so another
 * runner picks them up without an attempt being counted. Before its first lease it removes the task
 * directories a crashed runner of this machine left in the work root (work-dirs.ts).
 */

export interface RunnerDeps {
  /** The handler registry (see services/index.ts); the runner leases only these handlers. */
  handlers: Record<string, StepHandler>;
  client?: ProtocolClient;
  log?: Logger;
  /** For tests: replaces Math.random in the idle backoff. */
  random?: () => number;
}

/** How long released tasks get to settle (abort children, delete work dirs) before exit. */
const RELEASE_SETTLE_MS = 5_000;
/** Time for the release calls themselves: one request timeout of the protocol client. */
const RELEASE_CALL_MS = 15_000;

/**
 * The longest a runner takes to exit after a stop signal, given its shutdown grace: the grace,
 * the release calls, then the settle time. A supervisor must wait this long before SIGKILL, or
 * running work is lost to a lease expiry (`runner_lost`) instead of being released.
 */
export function shutdownDeadlineMs(shutdownGraceMs: number): number {
  return shutdownGraceMs + RELEASE_CALL_MS + RELEASE_SETTLE_MS;
}

export class Runner {
  readonly handlers: Record<string, StepHandler>;
  private readonly client: ProtocolClient;
  private readonly log: Logger;
  private readonly random: () => number;
  private readonly running = new Map<string, TaskRun>();
  private readonly stopController = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly config: RunnerConfig,
    deps: RunnerDeps,
  ) {
    this.client = deps.client ?? new ProtocolClient({ baseUrl: config.apiUrl, token: config.token });
    this.handlers = deps.handlers;
    if (Object.keys(this.handlers).length === 0) throw new Error("the runner has no handlers to lease for");
    this.log = deps.log ?? jsonLogger({ runnerId: config.runnerId });
    this.random = deps.random ?? Math.random;
  }

  /** Number of tasks running now. */
  get activeTasks(): number {
    return this.running.size;
  }

  /** Starts the loop; the promise settles once the runner has stopped (after shutdown()). */
  start(): Promise<void> {
    this.loop ??= this.runLoop();
    return this.loop;
  }

  /** Stops leasing and drains (see class comment). Idempotent; settles when the runner stopped. */
  shutdown(): Promise<void> {
    if (!this.stopController.signal.aborted) {
      this.log("info", "shutdown_started", { running: this.running.size, graceMs: this.config.shutdownGraceMs });
      this.stopController.abort();
    }
    return this.start();
  }

  /** Idle delay before the next lease poll: min·2^n, capped at max, with equal jitter. */
  backoffMs(idlePolls: number): number {
    const { pollMinMs: min, pollMaxMs: max } = this.config;
    const ceiling = Math.min(max, min * 2 ** Math.min(idlePolls, 30));
    return Math.round(ceiling / 2 + this.random() * (ceiling / 2));
  }

  private get stopping(): boolean {
    return this.stopController.signal.aborted;
  }

  private async runLoop(): Promise<void> {
    const handlerNames = Object.keys(this.handlers);
    this.log("info", "runner_started", {
      apiUrl: this.config.apiUrl,
      lanes: this.config.lanes,
      concurrency: this.config.concurrency,
      handlers: handlerNames,
      workDir: this.config.workDir,
    });
    try {
      const swept = await sweepLeftovers(this.config.workDir);
      if (swept.length > 0) this.log("info", "work_dir_swept", { removed: swept });
    } catch (err) {
      this.log("warn", "work_dir_sweep_failed", { error: String(err) });
    }
    let idlePolls = 0;
    while (!this.stopping) {
      if (this.running.size >= this.config.concurrency) {
        await this.waitForSlot();
        continue;
      }
      let task: LeasedTask | null;
      const asked = Date.now();
      try {
        task = await this.client.lease(
          { runnerId: this.config.runnerId, lanes: this.config.lanes, handlers: handlerNames, waitSeconds: this.config.leaseWaitSeconds },
          // A long poll in flight is not cut off when stopping begins: the server may already have
          // claimed a task for it, which would then sit leased until it expired (runner_lost). It is
          // answered within waitSeconds, and a task it brings is released just below.
          { retries: 2, retrySignal: this.stopController.signal },
        );
      } catch (err) {
        if (!this.stopping) this.log("warn", "lease_failed", { error: String(err) });
        await this.idle(this.backoffMs(idlePolls++));
        continue;
      }
      if (task === null) {
        // A server that held the long poll already waited for us; one that answered at once did not.
        const held = this.config.leaseWaitSeconds > 0 && Date.now() - asked >= this.config.leaseWaitSeconds * 500;
        if (!held) await this.idle(this.backoffMs(idlePolls++));
        continue;
      }
      idlePolls = 0;
      this.startTask(task);
      if (this.stopping) {
        // Leased while shutdown began: give it straight back.
        await this.running.get(task.taskId)?.release();
      }
    }
    await this.drain();
  }

  private startTask(task: LeasedTask): void {
    this.log("info", "lease", {
      taskId: task.taskId,
      jobId: task.jobId,
      attempt: task.attempt,
      handler: task.step.handler,
      serviceType: task.serviceType,
      leaseUntil: task.leaseUntil,
    });
    const run = new TaskRun(task, {
      client: this.client,
      handlers: this.handlers,
      workRoot: this.config.workDir,
      cores: Math.max(1, Math.floor(this.config.cores / this.config.concurrency)),
      storageGuard: { allowLoopback: this.config.allowLoopbackStorage },
      log: this.log,
    });
    this.running.set(task.taskId, run);
    void run.done.finally(() => this.running.delete(task.taskId));
  }

  private async drain(): Promise<void> {
    const runs = [...this.running.values()];
    if (runs.length > 0) {
      const finished = await settleWithin(Promise.allSettled(runs.map((r) => r.done)), this.config.shutdownGraceMs);
      if (!finished) {
        const left = runs.filter((r) => this.running.has(r.taskId));
        this.log("warn", "shutdown_grace_elapsed", { releasing: left.map((r) => r.taskId) });
        await Promise.all(left.map((r) => r.release()));
        const settled = await settleWithin(Promise.allSettled(left.map((r) => r.done)), RELEASE_SETTLE_MS);
        if (!settled) {
          // A handler ignored its abort signal: remove what we can before exiting.
          for (const r of left) {
            const dir = r.currentWorkDir;
            if (dir) rmSync(dir, { recursive: true, force: true });
          }
        }
      }
    }
    this.log("info", "runner_stopped", {});
  }

  private async waitForSlot(): Promise<void> {
    if (this.stopping) return;
    let onStop: (() => void) | undefined;
    const stop = new Promise<void>((resolve) => {
      onStop = () => resolve();
      this.stopController.signal.addEventListener("abort", onStop, { once: true });
    });
    try {
      await Promise.race([stop, ...[...this.running.values()].map((r) => r.done)]);
    } finally {
      if (onStop) this.stopController.signal.removeEventListener("abort", onStop);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopping) return resolve();
      const onStop = () => {
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(() => {
        this.stopController.signal.removeEventListener("abort", onStop);
        resolve();
      }, ms);
      this.stopController.signal.addEventListener("abort", onStop, { once: true });
    });
  }
}

/** True if `p` settled within `ms`. */
async function settleWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
