import { AsyncLocalStorage } from "node:async_hooks";
import os from "node:os";
import { SettingsSchema, type Settings } from "../contracts/settings";
import { StepFailure } from "../contracts/step-failure";

/**
 * What the runner knows of the task whose code is running, wherever that code is: its work
 * directory, its wall-clock limits, its picture bound and the stage it is in. The task runner
 * opens the scope around the handler (`runInTask`) and the stage reporter nests a frame per
 * stage (`runInStage`), so a child process, an engine's scratch file or a sharp decode started
 * anywhere inside picks them up without being handed them: a limit cannot be forgotten at a call
 * site. Outside a task (scripts, tests that call helpers directly) there is no scope: no limit,
 * and scratch files go to the system's temp directory.
 */

type RunnerSettings = Settings["runner"];
export type TimeLimits = RunnerSettings["timeLimits"];

const DEFAULT_RUNNER = SettingsSchema.shape.runner.parse({});

export class TaskScope {
  /** The source's measured duration, once the probe step knows it (media/source.ts). */
  private sourceSec: number | null = null;

  constructor(
    readonly workDir: string,
    readonly limits: TimeLimits,
    /** Largest picture a decode may open (runner.maxPixels): sharp's `limitInputPixels`. */
    readonly maxPixels: number,
    /** How long a stage may go on once a cancel was requested (runner.cancelGraceSeconds). */
    readonly cancelGraceSec: number = DEFAULT_RUNNER.cancelGraceSeconds,
  ) {}

  /** The scope of a task whose `settings.runner` may be missing or partial: every default filled in. */
  static fromSettings(workDir: string, settings: Record<string, unknown>): TaskScope {
    const parsed = SettingsSchema.shape.runner.safeParse(settings["runner"] ?? {});
    const runner = parsed.success ? parsed.data : DEFAULT_RUNNER;
    return new TaskScope(workDir, runner.timeLimits, runner.maxPixels, runner.cancelGraceSeconds);
  }

  get sourceDurationSec(): number | null {
    return this.sourceSec;
  }

  recordSourceDuration(sec: number): void {
    this.sourceSec = sec;
  }

  /** A child's or a stage's wall-clock limit now: `baseSeconds + perSourceSecond × duration` (the base alone before the probe). */
  limitSec(): number {
    return this.limits.baseSeconds + this.limits.perSourceSecond * (this.sourceSec ?? 0);
  }

  /** How the limit was reached, for messages. */
  describeLimit(): string {
    const { baseSeconds, perSourceSecond } = this.limits;
    return this.sourceSec === null
      ? `runner.timeLimits.baseSeconds ${baseSeconds} s; the source's duration is not known yet`
      : `runner.timeLimits: ${baseSeconds} s + ${perSourceSecond} s × ${this.sourceSec.toFixed(1)} s of source`;
  }
}

interface Frame {
  task: TaskScope;
  /** The innermost stage running, and the signal that aborts it (its time limit, a cancel's grace). */
  stage: { name: string; signal: AbortSignal } | null;
}

const frames = new AsyncLocalStorage<Frame>();

export function runInTask<T>(task: TaskScope, fn: () => T): T {
  return frames.run({ task, stage: null }, fn);
}

/** Runs `fn` as stage `name`: children started inside are killed when `signal` aborts (or an enclosing stage's does). */
export function runInStage<T>(name: string, signal: AbortSignal, fn: () => T): T {
  const outer = frames.getStore();
  if (!outer) return fn();
  const combined = outer.stage ? AbortSignal.any([outer.stage.signal, signal]) : signal;
  return frames.run({ task: outer.task, stage: { name, signal: combined } }, fn);
}

export function currentTask(): TaskScope | undefined {
  return frames.getStore()?.task;
}

export function currentStage(): { name: string; signal: AbortSignal } | null {
  return frames.getStore()?.stage ?? null;
}

/** The probe step tells the running task how long its source really is: later limits grow with it. */
export function recordSourceDuration(sec: number): void {
  currentTask()?.recordSourceDuration(sec);
}

/** Where scratch files go: the task's work directory (removed with it, whatever happens), else the system's temp directory. */
export function scratchRoot(): string {
  return currentTask()?.workDir ?? os.tmpdir();
}

/** Runner default of `runner.maxPixels`, for decodes outside a task. */
export const DEFAULT_MAX_PIXELS = DEFAULT_RUNNER.maxPixels;

/** The picture bound of the running task (sharp's `limitInputPixels`). */
export function maxInputPixels(): number {
  return currentTask()?.maxPixels ?? DEFAULT_MAX_PIXELS;
}

/**
 * Calls `onExpire` once `limitMs()` has passed since `startedAt`. The limit is read again when the
 * timer fires: a stage that started before the probe measured the source gets the longer limit
 * the duration brings. Returns a function that stops watching.
 */
export function watchDeadline(startedAt: number, limitMs: () => number, onExpire: (elapsedMs: number) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const arm = () => {
    if (stopped) return;
    const left = startedAt + limitMs() - Date.now();
    if (left <= 0) {
      stopped = true;
      onExpire(Date.now() - startedAt);
      return;
    }
    // setTimeout's own ceiling is about 24.8 days; a longer limit is re-read on the way.
    timer = setTimeout(arm, Math.min(left, 2 ** 31 - 1));
    timer.unref?.();
  };
  arm();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** `processing_timeout`: final, since the same media takes as long on the next attempt. */
export function timeoutFailure(what: string, elapsedMs: number, task: TaskScope): StepFailure {
  return new StepFailure(
    "processing_timeout",
    `${what} was stopped after ${(elapsedMs / 1000).toFixed(1)} s: its time limit is ${formatSec(task.limitSec())} (${task.describeLimit()})`,
    false,
  );
}

const formatSec = (s: number): string => `${Number.isInteger(s) ? s : s.toFixed(1)} s`;
