import { InvalidArgumentError, Option } from "commander";
import { MediaJobs, type Sleep } from "../client";
import { readBookmark, resolveConfig, saveBookmark } from "./config";
import type { ExitCode } from "./exit-codes";
import type { OutStream } from "./progress";

/**
 * What every command gets: the streams, environment and fetch (arguments, so tests drive the tool
 * in-process), the shared option parsers, and the API client built from the login or environment.
 */
export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  stdin: AsyncIterable<string | Uint8Array> & { isTTY?: boolean };
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
  sleep?: Sleep;
}

export interface Ctx {
  io: CliIo;
  setExit(code: ExitCode): void;
}

export const positiveInt = (label: string) => (value: string) => {
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new InvalidArgumentError(`${label} must be a whole number of at least 1`);
  return Number(value);
};
export const seconds = (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("must be a number of seconds above 0");
  return n;
};
export const csvOf =
  <T extends string>(allowed: readonly T[], label: string) =>
  (value: string): T[] => {
    const items = value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const bad = items.filter((s) => !allowed.includes(s as T));
    if (bad.length) throw new InvalidArgumentError(`unknown ${label} ${bad.join(", ")} (one of ${allowed.join(", ")})`);
    return items as T[];
  };

export async function readAll(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** The first line only: on a terminal the user types the key and presses Enter, no Ctrl-D needed. */
export async function readLine(stream: AsyncIterable<string | Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of stream) {
    text += typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true });
    if (text.includes("\n")) break;
  }
  return text.split("\n")[0] ?? "";
}

export async function client(io: CliIo): Promise<{ mj: MediaJobs; key: string }> {
  const { url, key } = await resolveConfig(io.env);
  const bookmark = await readBookmark(io.env, url);
  return {
    mj: new MediaJobs({
      baseUrl: url,
      apiKey: key,
      ...(io.fetch ? { fetch: io.fetch } : {}),
      ...(io.sleep ? { sleep: io.sleep } : {}),
      // Carried from run to run: a command reads what the commands before it wrote.
      ...(bookmark ? { bookmark } : {}),
      onBookmark: (b) => saveBookmark(io.env, url, b),
    }),
    key,
  };
}

/** Only a console session may read a job's stage timeline (GET /v1/jobs/{jobId}/progress); other keys get 403. */
export const isConsoleSession = (key: string): boolean => key.startsWith("sk_con_");

export const jsonOption = () => new Option("--json", "print machine-readable JSON on stdout");
