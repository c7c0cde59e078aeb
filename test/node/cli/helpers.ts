import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { run } from "../../../sdk/cli/main";

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the tool in-process with captured streams; polls and retries do not sleep. */
export async function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; stdin?: string; tty?: boolean } = {},
): Promise<CliResult> {
  let stdout = "";
  let stderr = "";
  const code = await run(args, {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: options.tty ?? false, columns: 200 },
    stdin: Object.assign(
      (async function* () {
        if (options.stdin !== undefined) yield options.stdin;
      })(),
      { isTTY: false },
    ),
    env: options.env ?? {},
    sleep: async () => undefined,
  });
  return { code, stdout, stderr };
}

export async function tempConfigHome(): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), "media-jobs-cli-"));
}
