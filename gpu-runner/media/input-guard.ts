import path from "node:path";

/**
 * The input guard of the media tools. ffmpeg and ffprobe open whatever an input names, and a demuxer
 * opens what the input itself names (an HLS or DASH playlist's segments, a concat list's files):
 * every input they are given must carry `-protocol_whitelist file` before its `-i` (INPUT_GUARD),
 * so nothing but local files is ever opened, whatever the file says. Both ways of starting a child
 * (media/spawn.ts, child-process.ts) refuse either tool without it.
 */

export const FFMPEG = process.env.FFMPEG_PATH ?? "ffmpeg";
export const FFPROBE = process.env.FFPROBE_PATH ?? "ffprobe";

/** The only protocols an input may use: local files (no input is ever a pipe). */
export const INPUT_PROTOCOLS = "file";
/** Input options before every `-i` of ffmpeg/ffprobe. */
export const INPUT_GUARD = ["-protocol_whitelist", INPUT_PROTOCOLS] as const;

/** An input that is one of our own files (a work file the pipeline wrote): the guard, then `-i`. */
export const fileInput = (file: string): string[] => [...INPUT_GUARD, "-i", file];

/** ffmpeg/ffprobe arguments that would let an input open something other than a local file: a bug, never run. */
export class UnguardedInputError extends Error {
  constructor(tool: string, why: string) {
    super(`refusing to run ${tool}: ${why}`);
    this.name = "UnguardedInputError";
  }
}

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
