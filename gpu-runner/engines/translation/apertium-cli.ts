import { mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { isStepFailure } from "../../../contracts/step-failure";
import { spawnChild, stopReason } from "../../child-process";
import { EngineRequestError } from "../../../contracts/engine-http";
import { ApertiumEngine, type ApertiumBaseConfig } from "./apertium";
import { scratchRoot } from "../../task-scope";

/**
 * Apertium through its command: `apertium -u -f txt <mode> <file>`, the texts of a call in one
 * file (one process for the whole call: a run starts the mode's whole pipeline, then does about
 * 7,000 words/s on one core). `-u` leaves out the marks of unknown words. The input is a file, not
 * stdin: the script reads stdin as `/dev/stdin`, which cannot be opened when stdin is the socket
 * Node gives a child ("USAGE: apertium-destxt …" and empty output). The process is tied to the
 * task's signal (child-process.ts: its whole group is killed on abort) and to a timeout.
 */
export interface ApertiumCliConfig extends ApertiumBaseConfig {
  /** The `apertium` executable (default: `apertium` on PATH). */
  command?: string;
  /** The longest one run may take (default 120 s). */
  timeoutMs?: number;
}

export const APERTIUM_CLI_TIMEOUT_MS = 120_000;

export class ApertiumCliEngine extends ApertiumEngine {
  readonly transport = "cli" as const;
  /** Every text of a call through one process. */
  protected readonly maxChars = Number.POSITIVE_INFINITY;

  constructor(private readonly config: ApertiumCliConfig = {}) {
    super(config);
  }

  protected async run(mode: string, text: string, signal: AbortSignal): Promise<string> {
    const timeoutMs = this.config.timeoutMs ?? APERTIUM_CLI_TIMEOUT_MS;
    const timeout = AbortSignal.timeout(timeoutMs);
    const both = AbortSignal.any([signal, timeout]);
    const model = `apertium:${mode}`;
    try {
      return await withInputFile(`${text}\n`, (file) => run(this.config.command ?? "apertium", ["-u", "-f", "txt", mode, file], both));
    } catch (err) {
      signal.throwIfAborted();
      // The task's time limit (child-process.ts) is the task's failure, not the engine's.
      if (isStepFailure(err)) throw err;
      if (timeout.aborted) throw new EngineRequestError(`apertium (${model}): no output within ${timeoutMs} ms`, true, undefined);
      // A missing command or a broken mode: this runner's installation, which another runner may not share.
      throw new EngineRequestError(`apertium (${model}): ${(err as Error).message}`, true, undefined);
    }
  }
}

async function withInputFile<T>(input: string, use: (file: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(scratchRoot(), "apertium-"));
  try {
    const file = path.join(dir, "input.txt");
    await writeFile(file, input);
    return await use(file);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs a command; resolves with stdout when it exits 0, rejects with stderr's tail otherwise (or the signal's reason). */
function run(command: string, args: readonly string[], signal: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    signal.throwIfAborted();
    const child = spawnChild(command, args, { stdio: ["ignore", "pipe", "pipe"], signal });
    const out: Buffer[] = [];
    let err = "";
    child.stdout!.on("data", (d: Buffer) => out.push(d));
    child.stderr!.setEncoding("utf8").on("data", (d: string) => (err = (err + d).slice(-2000)));
    child.once("error", reject);
    child.once("close", (code, sig) => {
      const stopped = stopReason(child);
      if (stopped !== undefined) return reject(stopped as Error);
      if (signal.aborted) return reject(signal.reason as Error);
      const stdout = Buffer.concat(out).toString("utf8");
      // The script exits 0 when a stage of its pipeline fails to start: no output is the sign (the input is never empty).
      if (code === 0 && stdout.trim() !== "") return resolve(stdout);
      const tail = err.replace(/\s+/g, " ").trim().slice(-300);
      reject(new Error(`${command} ${code === 0 ? "wrote nothing" : `exited with ${code ?? sig}`}${tail ? `: ${tail}` : ""}`));
    });
  });
}
