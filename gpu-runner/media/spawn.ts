import { createInterface } from "node:readline";
import { spawnChild, stopReason } from "../child-process";
import { assertGuardedInputs } from "./input-guard";

export { assertGuardedInputs, FFMPEG, FFPROBE, fileInput, INPUT_GUARD, INPUT_PROTOCOLS, UnguardedInputError } from "./input-guard";

/**
 * One way to run the media tools (ffmpeg, ffprobe, pocketsphinx). Output is consumed line by line
 * so a tool that prints per-frame logs for an hour of media never sits in memory as one string;
 * only what the caller keeps (via `onStderrLine`/`onStdoutLine`) and a short stderr tail survive.
 *
 * `runTool` refuses to start ffmpeg or ffprobe unless every input carries `-protocol_whitelist
 * file` before its `-i` (input-guard.ts: nothing but local files is ever opened, whatever a file
 * names); a customer's source is opened through media/source.ts, which adds its accepted demuxer.
 */

export interface RunOptions {
  signal?: AbortSignal;
  onStdoutLine?: (line: string) => void;
  onStderrLine?: (line: string) => void;
  /** Collect stdout into the result (only for tools whose stdout is small, e.g. ffprobe JSON). */
  collectStdout?: boolean;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  /** The last lines of stderr: enough for an error message, bounded whatever the tool prints. */
  stderrTail: string[];
}

export class ToolError extends Error {
  constructor(
    readonly tool: string,
    readonly code: number | null,
    readonly stderrTail: string[],
  ) {
    super(`${tool} exited with ${code}: ${stderrTail.slice(-3).join(" | ") || "(no output)"}`);
    this.name = "ToolError";
  }
}

const STDERR_TAIL_LINES = 20;

export async function runTool(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  assertGuardedInputs(cmd, args);
  // Tied to the handler's signal through spawnChild: a lost lease kills the tool's whole process group.
  const signal = opts.signal ?? new AbortController().signal;
  signal.throwIfAborted();
  const child = spawnChild(cmd, args, { stdio: ["ignore", "pipe", "pipe"], signal });
  const stderrTail: string[] = [];
  const stdoutParts: string[] = [];

  const out = createInterface({ input: child.stdout!, crlfDelay: Infinity });
  out.on("line", (line) => {
    if (opts.collectStdout) stdoutParts.push(line);
    opts.onStdoutLine?.(line);
  });
  const err = createInterface({ input: child.stderr!, crlfDelay: Infinity });
  err.on("line", (line) => {
    stderrTail.push(line);
    if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift();
    opts.onStderrLine?.(line);
  });

  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (c) => resolve(c));
  });
  // Killed for its time limit or its stage's: that is the failure, not the exit code it died with.
  const stopped = stopReason(child);
  if (stopped !== undefined) throw stopped;
  signal.throwIfAborted();
  return { code, stdout: stdoutParts.join("\n"), stderrTail };
}

/** Runs a tool and throws ToolError unless it exits 0. */
export async function runToolOk(cmd: string, args: readonly string[], opts: RunOptions = {}): Promise<RunResult> {
  const res = await runTool(cmd, args, opts);
  if (res.code !== 0) throw new ToolError(cmd, res.code, res.stderrTail);
  return res;
}
