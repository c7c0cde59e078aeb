import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";

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
 */

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

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
  installExitHook();
  const child = spawn(command, args, { ...rest, detached: process.platform !== "win32" });
  live.add(child);
  const onAbort = () => killGroup(child);
  if (signal.aborted) queueMicrotask(onAbort);
  else signal.addEventListener("abort", onAbort, { once: true });
  child.once("exit", () => {
    live.delete(child);
    signal.removeEventListener("abort", onAbort);
  });
  child.once("error", () => live.delete(child));
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
      if (opts.signal.aborted) reject(opts.signal.reason ?? new Error("aborted"));
      else resolve({ code, signal: sig, stdout, stderr });
    });
  });
}
