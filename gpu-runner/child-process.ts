import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import path from "node:path";
import { assertGuardedInputs } from "./media/input-guard";
import { currentStage, currentTask, timeoutFailure, watchDeadline } from "./task-scope";

/**
 * Spawning child processes from a step handler.
 *
 * RULE: every child process a handler starts (ffmpeg, a speech engine, …) must be tied to the
 * handler's `ctx.signal`. The runner aborts that signal when the lease is lost or the runner is
 * shutting down and releases the task; a child that keeps running would keep writing into a
 * work directory that is being deleted and keep a GPU/CPU busy for a task another runner now
 * owns. Either call `spawnChild` / `runChild` below, or pass `signal` to node's `spawn`/`execFile`
 * yourself (node then sends `killSignal` to the child on abort, though not to its own children).
 *
 * `spawnChild` starts the child in its own process group and kills the whole group with SIGKILL
 * on abort, so grandchildren (shell pipelines, engine workers) die too. Children still alive
 * when the runner process exits are killed as well.
 *
 * Inside a task (task-scope.ts) every child also has a wall-clock limit, `runner.timeLimits`
 * (base + per source second, the duration once the probe measured it), and dies with the stage
 * it was started in (the stage's own limit, a cancel's grace): its group is killed and
 * `stopReason(child)` says why (`processing_timeout` naming the tool and the stage). Its TMPDIR
 * is the task's work directory, so whatever a tool writes there goes with the task. ffmpeg and
 * ffprobe are refused unless every input is limited to local files (media/input-guard.ts).
 */

const live = new Set<ChildProcess>();
const stopReasons = new WeakMap<ChildProcess, unknown>();
let exitHookInstalled = false;

/** Why the runner killed `child` (its time limit, its stage stopped), or undefined if it did not. */
export function stopReason(child: ChildProcess): unknown {
  return stopReasons.get(child);
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals = "SIGKILL"): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform === "win32") child.kill(signal);
    else process.kill(-child.pid, signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const child of live) killGroup(child);
  });
}

export interface SpawnChildOptions extends Omit<SpawnOptions, "signal" | "detached"> {
  /** The handler's ctx.signal. Required on purpose. */
  signal: AbortSignal;
}

/** `spawn` bound to an abort signal: on abort the child's whole process group gets SIGKILL. */
export function spawnChild(command: string, args: readonly string[], opts: SpawnChildOptions): ChildProcess {
  const { signal, ...rest } = opts;
  assertGuardedInputs(command, args);
  installExitHook();
  const task = currentTask();
  const stage = currentStage();
  const env = task ? { ...(rest.env ?? process.env), TMPDIR: task.workDir } : rest.env;
  const child = spawn(command, args, { ...rest, ...(env ? { env } : {}), detached: process.platform !== "win32" });
  live.add(child);
  const stop = (reason: unknown) => {
    if (!stopReasons.has(child)) stopReasons.set(child, reason);
    killGroup(child);
  };
  const onAbort = () => killGroup(child);
  const onStageStopped = () => stop(stage?.signal.reason ?? new Error(`stage ${stage?.name} stopped`));
  if (signal.aborted) queueMicrotask(onAbort);
  else signal.addEventListener("abort", onAbort, { once: true });
  if (stage?.signal.aborted) queueMicrotask(onStageStopped);
  else stage?.signal.addEventListener("abort", onStageStopped, { once: true });
  const tool = path.basename(command);
  const unwatch = task
    ? watchDeadline(
        Date.now(),
        () => task.limitSec() * 1000,
        (elapsed) => stop(timeoutFailure(`${tool}${stage ? ` (stage ${stage.name})` : ""}`, elapsed, task)),
      )
    : () => undefined;
  const done = () => {
    live.delete(child);
    unwatch();
    signal.removeEventListener("abort", onAbort);
    stage?.signal.removeEventListener("abort", onStageStopped);
  };
  child.once("exit", done);
  child.once("error", done);
  return child;
}

export interface RunChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command to completion, collecting output (stdout capped at `maxOutputBytes`, stderr
 * keeps its tail). Rejects with the signal's reason when aborted; resolves otherwise, whatever
 * the exit code: the caller decides which codes are failures.
 */
export function runChild(
  command: string,
  args: readonly string[],
  opts: SpawnChildOptions & { maxOutputBytes?: number },
): Promise<RunChildResult> {
  const max = opts.maxOutputBytes ?? 16 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const child = spawnChild(command, args, { ...opts, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => {
      if (stdout.length < max) stdout += d.slice(0, max - stdout.length);
    });
    child.stderr?.setEncoding("utf8").on("data", (d: string) => {
      stderr = (stderr + d).slice(-64 * 1024);
    });
    child.once("error", reject);
    child.once("close", (code, sig) => {
      const stopped = stopReason(child);
      if (stopped !== undefined) reject(stopped);
      else if (opts.signal.aborted) reject(opts.signal.reason ?? new Error("aborted"));
      else resolve({ code, signal: sig, stdout, stderr });
    });
  });
}
