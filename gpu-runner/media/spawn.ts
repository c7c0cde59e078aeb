import path from "node:path";
import { createInterface } from "node:readline";
import { spawnChild, stopReason } from "../child-process";

/**
 * One way to run the media tools (ffmpeg, ffprobe, pocketsphinx). Output is consumed line by line
 * so a tool that prints per-frame logs for an hour of media never sits in memory as one string;
 * only what the caller keeps (via `onStderrLine`/`onStdoutLine`) and a short stderr tail survive.
 *
 * ffmpeg and ffprobe open whatever an input names, and a demuxer opens what the input itself names
 * (an HLS or DASH playlist's segments, a concat list's files): every input they are given must
 * carry `-protocol_whitelist file` before its `-i` (INPUT_GUARD), so nothing but local files is
 * ever opened, whatever the file says. `runTool` refuses to start either tool without it; a
 * customer's source is opened through media/source.ts, which adds its accepted demuxer too.
 */

export const FFMPEG = process.env.FFMPEG_PATH ?? "ffmpeg";
export const FFPROBE = process.env.FFPROBE_PATH ?? "ffprobe";

/** The only protocols an input may use: local files (no input is ever a pipe). */
export const INPUT_PROTOCOLS = "file";
/** Input options before every `-i` of ffmpeg/ffprobe. */
export const INPUT_GUARD = ["-protocol_whitelist", INPUT_PROTOCOLS] as const;

/** An input that is one of our own files (a work file the pipeline wrote): the guard, then `-i`. */
export const fileInput = (file: string): string[] => [...INPUT_GUARD, "-i", file];

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

/** ffmpeg/ffprobe arguments that would let an input open something other than a local file: a bug, never run. */
export class UnguardedInputError extends Error {
  constructor(tool: string, why: string) {
    super(`refusing to run ${tool}: ${why}`);
    this.name = "UnguardedInputError";
  }
}

const STDERR_TAIL_LINES = 20;
const ALLOWED_PROTOCOLS = new Set(["file", "pipe"]);

function isMediaTool(cmd: string): boolean {
  return cmd === FFMPEG || cmd === FFPROBE || /^ff(mpeg|probe)/i.test(path.basename(cmd));
}

/**
 * Throws UnguardedInputError unless every input of an ffmpeg/ffprobe run has `-protocol_whitelist`
 * naming local protocols only, given after the previous input and before its own `-i`. ffprobe
 * must name its input with `-i` (a bare path could not be checked).
 */
export function assertGuardedInputs(cmd: string, args: readonly string[]): void {
  if (!isMediaTool(cmd)) return;
  const tool = path.basename(cmd);
  let from = 0;
  let inputs = 0;
  for (let k = 0; k < args.length; k++) {
    if (args[k] !== "-i") continue;
    inputs++;
    let guarded = false;
    for (let j = from; j + 1 < k; j++) {
      if (args[j] !== "-protocol_whitelist") continue;
      const protocols = (args[j + 1] ?? "").split(",");
      if (protocols.some((p) => !ALLOWED_PROTOCOLS.has(p))) {
        throw new UnguardedInputError(tool, `input ${inputs} allows protocols ${args[j + 1]} (only ${[...ALLOWED_PROTOCOLS].join(", ")})`);
      }
      guarded = true;
    }
    if (!guarded) throw new UnguardedInputError(tool, `input ${inputs} (${args[k + 1] ?? "?"}) has no -protocol_whitelist before its -i`);
    from = k + 2;
  }
  if (inputs === 0 && /^ffprobe/i.test(tool))
    throw new UnguardedInputError(tool, "ffprobe must name its input with -i after -protocol_whitelist");
}

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
