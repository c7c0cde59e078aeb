import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { S3Client } from "../contracts/s3-client";
import { bootstrap, type BootstrapResult } from "../scripts/lib/api-client";
import { LOCAL_ADMIN_SECRET, startStack, type Stack, type StackOptions } from "../scripts/lib/stack";
import { runToolOk } from "../gpu-runner/media/spawn";

/**
 * Shared by the benchmarks: a fresh local stack in a temporary directory that is always torn down
 * (on success, on error, on SIGINT/SIGTERM), plus the small statistics and table helpers.
 */

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] as number;
}

export function summarize(values: number[]): { n: number; p50: number; p99: number; min: number; max: number; mean: number } {
  const s = [...values].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), min: s[0] ?? Number.NaN, max: s[s.length - 1] ?? Number.NaN, mean };
}

export const fmt = (n: number, digits = 1): string => (Number.isFinite(n) ? n.toFixed(digits) : "-");

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(" | ")} |`;
  return [
    line(header),
    `|${widths.map((w, i) => (i === 0 ? ":" : "-") + "-".repeat(w) + (i === 0 ? "-" : ":")).join("|")}|`,
    ...rows.map(line),
  ].join("\n");
}

export function machineInfo(): string {
  const cpus = os.cpus();
  return [
    `machine: ${os.availableParallelism()} cores (${cpus[0]?.model.trim() ?? "unknown cpu"}), ${Math.round(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}`,
    `node ${process.version}; load average at start ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  ].join("\n");
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Runs `body` against a fresh stack in a temporary state dir and always stops everything the
 * stack started (wrangler/workerd, runners, the in-process S3) and removes the dir. A signal
 * also tears down before exiting. Exits non-zero when the body throws.
 */
export async function withFreshStack(opts: StackOptions, body: (stack: Stack) => Promise<void>): Promise<void> {
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "media-jobs-bench-"));
  let stack: Stack | undefined;
  let closing: Promise<void> | undefined;
  const teardown = () => {
    closing ??= (async () => {
      await stack?.close();
      await rm(stateDir, { recursive: true, force: true });
    })();
    return closing;
  };
  const onSignal = (sig: NodeJS.Signals) => {
    console.error(`\n${sig}: stopping the stack`);
    void teardown().finally(() => process.exit(130));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  let failed = false;
  try {
    stack = await startStack({ ...opts, stateDir });
    await body(stack);
  } catch (err) {
    failed = true;
    console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
    if (stack) console.error(`--- last stack logs ---\n${stack.logs().slice(-3000)}`);
  } finally {
    await teardown();
  }
  if (failed) process.exit(1);
}

/** The baseline of the transcription benchmarks: the PocketSphinx command-line tool on a WAV, timed, with its peak RSS. */
export async function timeCli(wav: string): Promise<{ wallMs: number; text: string; peakRssMb: number }> {
  const started = performance.now();
  const lines: string[] = [];
  await runToolOk("/usr/bin/time", ["-f", "maxrss=%M", "pocketsphinx_continuous", "-infile", wav, "-logfn", "/dev/null"], {
    onStdoutLine: (l) => lines.push(l),
    onStderrLine: (l) => {
      const m = /^maxrss=(\d+)/.exec(l);
      if (m?.[1]) lines.push(`\u0000${m[1]}`);
    },
  });
  const wallMs = performance.now() - started;
  const rss = Number(lines.find((l) => l.startsWith("\u0000"))?.slice(1) ?? 0) / 1024;
  return { wallMs, text: lines.filter((l) => !l.startsWith("\u0000")).join(" "), peakRssMb: rss };
}

export interface LoadResult {
  requests: number;
  errors: number;
  latencies: number[];
  wallMs: number;
  firstError?: string;
}

/**
 * `concurrency` clients, each running one operation at a time, until `requests` were issued or
 * `seconds` passed. An operation resolves to null when it succeeded, else to an error description.
 */
export async function runLoad(
  op: (i: number) => Promise<string | null>,
  opts: { requests: number; seconds: number; concurrency: number },
): Promise<LoadResult> {
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  const deadline = start + opts.seconds * 1000;
  const client = async () => {
    while (issued < opts.requests && performance.now() < deadline) {
      const i = issued++;
      const t0 = performance.now();
      let error: string | null;
      try {
        error = await op(i);
      } catch (err) {
        error = String(err);
      }
      if (error === null) latencies.push(performance.now() - t0);
      else {
        errors++;
        firstError ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: opts.concurrency }, client));
  return { requests: issued, errors, latencies, wallMs: performance.now() - start, ...(firstError ? { firstError } : {}) };
}

/** A fresh enterprise tenant on the stack (workspace, project, keys, connection) and an S3 client on its local bucket. */
export async function benchTenant(stack: Stack, name = "bench"): Promise<{ tenant: BootstrapResult; s3: S3Client }> {
  const tenant = await bootstrap({
    apiBaseUrl: stack.apiBaseUrl,
    adminSecret: LOCAL_ADMIN_SECRET,
    name,
    plan: "enterprise",
    bucket: stack.bucket,
    s3: stack.s3,
  });
  const { endpoint, region, accessKeyId, secretAccessKey } = stack.s3;
  return { tenant, s3: new S3Client({ endpoint, region, accessKeyId, secretAccessKey, forcePathStyle: true }) };
}

/** Phase name → the durations (ms) a route answered in Server-Timing, one per request. */
export type Phases = Map<string, number[]>;

/** Adds one response's `Server-Timing` entries (`name;dur=1.2, …`) to `into`. */
export function collectServerTiming(res: Response, into: Phases): void {
  for (const entry of (res.headers.get("server-timing") ?? "").split(",")) {
    const [name, ...params] = entry.trim().split(";");
    const dur = params.map((p) => /^dur=([\d.]+)$/.exec(p.trim())?.[1]).find((d) => d !== undefined);
    if (!name || dur === undefined) continue;
    const list = into.get(name) ?? [];
    list.push(Number(dur));
    into.set(name, list);
  }
}
