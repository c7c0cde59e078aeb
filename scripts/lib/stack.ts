import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { loadConfig } from "../../gpu-runner/config";
import { writeApyModes } from "../../gpu-runner/engines/translation/apertium-apy-modes";
import { startApyProcess, startEmbeddingsProcess, TSX_LOADER } from "./engine-processes";
import { shutdownDeadlineMs } from "../../gpu-runner/runner";
import { startLocalS3, type LocalS3 } from "./local-s3";
import { apiCall } from "./api-client";

/**
 * The local stack: `wrangler dev` (local D1, Durable Objects and Queues persisted under one
 * directory), a local S3-compatible server on loopback with a bucket, and gpu-runners. Used by
 * `npm run dev`, the demo, the end-to-end tests and the benchmarks, so all of them exercise the
 * same thing an operator runs.
 */

export const ROOT = path.resolve(import.meta.dirname, "../..");
const require = createRequire(import.meta.url);
const WRANGLER = path.join(path.dirname(require.resolve("wrangler/package.json")), "bin/wrangler.js");

export const LOCAL_ADMIN_SECRET = "local-admin-secret";
export const LOCAL_BUCKET = "media-local";

export interface StackOptions {
  apiPort?: number;
  s3Port?: number;
  /** Where D1/DO/Queue state and S3 objects persist; a fresh dir makes a clean stack. */
  stateDir?: string;
  runners?: number;
  runnerConcurrency?: number;
  /** Extra environment for runners (e.g. RUNNER_ENABLE_TEST_HANDLERS). */
  runnerEnv?: Record<string, string>;
  /** Extra Worker vars (`--var KEY:VALUE`). */
  vars?: Record<string, string>;
  /** Forward child output to this process's stdout/stderr (dev) instead of keeping it quiet. */
  verbose?: boolean;
  buckets?: string[];
  /**
   * Start the local engine processes (default true): scripts/local-engines/embeddings-server.ts,
   * which embeds catalog queries for the Worker with the local model (it loads in about 3 s, beside
   * wrangler), and an apertium-apy server for the runners' `apertium` translation engine
   * (APERTIUM_APY_URL; its mark-free modes are written under the state dir).
   */
  localEngines?: boolean;
  /**
   * How often the stack runs the Worker's scheduled handler (the Cron Trigger's: orphan sweep,
   * expired rows, retention and unfinished deletions), in ms; 0: never on its own (tests call
   * `runScheduled`). Default: STACK_SCHEDULED_EVERY_MS, else every 15 minutes as in production.
   */
  scheduledEveryMs?: number;
}

export interface Stack {
  apiBaseUrl: string;
  /**
   * The runners' token (`mjr_…`), minted through the admin route when the stack starts, as an
   * operator mints one per GPU box; every runner the stack starts sends it as RUNNER_TOKEN.
   */
  runnerToken: string;
  /** The apertium-apy server the runners translate through (undefined without local engines). */
  apyUrl: string | undefined;
  s3: LocalS3;
  bucket: string;
  stateDir: string;
  runners: ChildProcess[];
  startRunner(env?: Record<string, string>): ChildProcess;
  /**
   * Stops every runner as Ctrl-C on `npm run dev` does, first thing in close(): one SIGTERM each,
   * then as long as the runner's shutdown grace and releases take before SIGKILL.
   */
  stopRunners(): Promise<void>;
  logs(): string;
  /** Runs the Worker's scheduled handler once, as the Cron Trigger does (wrangler's --test-scheduled route). */
  runScheduled(): Promise<void>;
  /** Graceful: runners first (they release or finish their work through the API), then the API. */
  close(): Promise<void>;
  /** Now: SIGKILL to every child's process group, e.g. on a second Ctrl-C. */
  kill(): void;
}

function onExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
  });
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

/**
 * Stops a child started detached: `signal` to its process group (wrangler starts workerd below
 * itself), or with `to: "process"` to the child alone (a runner stops its own children); after
 * `graceMs`, SIGKILL to the whole group.
 */
export async function stopChild(
  child: ChildProcess,
  signal: NodeJS.Signals = "SIGTERM",
  graceMs = 10_000,
  to: "group" | "process" = "group",
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  if (to === "group") killGroup(child, signal);
  else child.kill(signal);
  const timer = setTimeout(() => killGroup(child, "SIGKILL"), graceMs);
  await onExit(child);
  clearTimeout(timer);
}

/** How long a runner with this environment may take to stop after SIGTERM. */
function runnerStopDeadlineMs(env: NodeJS.ProcessEnv): number {
  try {
    return shutdownDeadlineMs(loadConfig(env).shutdownGraceMs);
  } catch {
    // An invalid configuration makes the runner exit at startup; there is nothing to wait for.
    return shutdownDeadlineMs(0);
  }
}

async function waitForHttp(url: string, timeoutMs: number, child: ChildProcess, logs: () => string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (child.exitCode !== null)
      throw new Error(`${child.spawnargs.slice(1, 3).join(" ")} exited with ${child.exitCode}:\n${logs().slice(-4000)}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${url}:\n${logs().slice(-4000)}`);
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d: Buffer) => (out += d.toString()));
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${path.basename(args[0] ?? cmd)} ${args.slice(1).join(" ")} exited ${code}:\n${out}`)),
    );
  });
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const stateDir = path.resolve(opts.stateDir ?? path.join(ROOT, ".local/state"));
  const bucket = opts.buckets?.[0] ?? LOCAL_BUCKET;
  await mkdir(path.join(stateDir, "s3"), { recursive: true });
  const s3 = await startLocalS3({ port: opts.s3Port ?? 0, dir: path.join(stateDir, "s3"), buckets: opts.buckets ?? [LOCAL_BUCKET] });
  const apiPort = opts.apiPort ?? 8787;
  const apiBaseUrl = `http://127.0.0.1:${apiPort}`;
  const env: NodeJS.ProcessEnv = { ...process.env, WRANGLER_SEND_METRICS: "false", CI: process.env["CI"] ?? "true" };
  const wranglerState = path.join(stateDir, "wrangler");

  await run(process.execPath, [WRANGLER, "d1", "migrations", "apply", "media-jobs", "--local", "--persist-to", wranglerState], env);

  let log = "";
  const keep = (d: Buffer) => {
    log += d.toString();
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  // The local engine processes: the embeddings server has the same vectors the runners load
  // in-process, over HTTP for the Worker; apertium-apy translates for the runners.
  let engines: ChildProcess | null = null;
  let apy: ChildProcess | null = null;
  let apyUrl: string | undefined;
  const vars = { ...opts.vars };
  const engineLog = (d: Buffer) => (opts.verbose ? process.stderr.write(d) : keep(d));
  if (opts.localEngines !== false) {
    const apyStarting = writeApyModes(path.join(stateDir, "apertium-modes")).then((modesDir) =>
      startApyProcess({ modesDir, env, log: engineLog }),
    );
    try {
      const embeddings = await startEmbeddingsProcess({ env, log: engineLog });
      engines = embeddings.child;
      vars["EMBEDDINGS_BASE_URL"] ??= embeddings.url;
      const started = await apyStarting;
      apy = started.child;
      apyUrl = started.url;
    } catch (err) {
      await apyStarting.then((p) => stopChild(p.child)).catch(() => undefined);
      if (engines) await stopChild(engines);
      await s3.close();
      throw err;
    }
  }
  const varArgs = Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const wrangler = spawn(
    process.execPath,
    [
      WRANGLER,
      "dev",
      "--ip",
      "127.0.0.1",
      "--port",
      String(apiPort),
      // A fixed port (STACK_INSPECTOR_PORT) lets a profiler attach to the Worker (bench/profile-route.ts).
      "--inspector-port",
      process.env["STACK_INSPECTOR_PORT"] ?? "0",
      "--persist-to",
      wranglerState,
      // Exposes the Cron Trigger's handler (the BLOBS orphan sweep) at /__scheduled: docs/deploy.md.
      "--test-scheduled",
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
      ...varArgs,
    ],
    { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  wrangler.stdout?.on("data", (d: Buffer) => (opts.verbose ? process.stdout.write(d) : keep(d)));
  wrangler.stderr?.on("data", (d: Buffer) => (opts.verbose ? process.stderr.write(d) : keep(d)));

  const runners: ChildProcess[] = [];
  const stopDeadlines = new Map<ChildProcess, number>();
  const startRunner = (extra: Record<string, string> = {}) => {
    if (!stack.runnerToken) throw new Error("the stack starts runners only once its API is up and their token minted");
    const runnerEnv: NodeJS.ProcessEnv = {
      ...process.env,
      RUNNER_API_URL: apiBaseUrl,
      RUNNER_TOKEN: stack.runnerToken,
      RUNNER_CONCURRENCY: String(opts.runnerConcurrency ?? 1),
      RUNNER_POLL_MIN_MS: "200",
      RUNNER_POLL_MAX_MS: "1000",
      // The local S3 server is on loopback; a production runner refuses such endpoints.
      RUNNER_ALLOW_LOOPBACK_STORAGE: "true",
      ...(apyUrl ? { APERTIUM_APY_URL: apyUrl } : {}),
      ...opts.runnerEnv,
      ...extra,
    };
    // Detached: a Ctrl-C in the terminal reaches the stack's own process only; the stack then
    // signals each runner exactly once (stopRunners).
    const child = spawn(process.execPath, ["--import", TSX_LOADER, path.join(ROOT, "gpu-runner/main.ts")], {
      cwd: ROOT,
      env: runnerEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    stopDeadlines.set(child, runnerStopDeadlineMs(runnerEnv));
    child.stdout?.on("data", (d: Buffer) => (opts.verbose ? process.stdout.write(d) : keep(d)));
    child.stderr?.on("data", (d: Buffer) => (opts.verbose ? process.stderr.write(d) : keep(d)));
    runners.push(child);
    return child;
  };

  let runnerTokenId: string | null = null;
  let scheduledTimer: NodeJS.Timeout | null = null;
  const stack: Stack = {
    apiBaseUrl,
    runnerToken: "",
    apyUrl,
    s3,
    bucket,
    stateDir,
    runners,
    startRunner,
    stopRunners: async () => {
      await Promise.all(runners.map((r) => stopChild(r, "SIGTERM", stopDeadlines.get(r) ?? shutdownDeadlineMs(0), "process")));
    },
    logs: () => log,
    runScheduled: async () => {
      const res = await fetch(`${apiBaseUrl}/__scheduled?cron=${encodeURIComponent("*/15 * * * *")}`);
      await res.body?.cancel();
      if (!res.ok) throw new Error(`the scheduled handler answered ${res.status}`);
    },
    close: async () => {
      if (scheduledTimer) clearInterval(scheduledTimer);
      await stack.stopRunners();
      // The state dir outlives the stack (npm run dev): a token nobody holds any more is revoked, not left valid.
      if (runnerTokenId)
        await apiCall(apiBaseUrl, "POST", `/admin/v1/runner-tokens/${runnerTokenId}/revoke`, LOCAL_ADMIN_SECRET).catch(() => undefined);
      await stopChild(wrangler);
      if (engines) await stopChild(engines);
      if (apy) await stopChild(apy);
      await s3.close();
    },
    kill: () => {
      for (const child of [...runners, wrangler, ...(engines ? [engines] : []), ...(apy ? [apy] : [])]) killGroup(child, "SIGKILL");
    },
  };
  try {
    await waitForHttp(`${apiBaseUrl}/healthz`, 90_000, wrangler, () => log);
    if (engines) await waitForHttp(`${vars["EMBEDDINGS_BASE_URL"]}/health`, 60_000, engines, () => log);
    const minted = await apiCall<{ runnerTokenId: string; secret: string }>(
      apiBaseUrl,
      "POST",
      "/admin/v1/runner-tokens",
      LOCAL_ADMIN_SECRET,
      {
        name: `local-stack-${new Date().toISOString()}`,
      },
    );
    stack.runnerToken = minted.data.secret;
    runnerTokenId = minted.data.runnerTokenId;
  } catch (err) {
    await stack.close();
    throw err;
  }
  for (let i = 0; i < (opts.runners ?? 0); i++) startRunner();
  const everyMs = opts.scheduledEveryMs ?? Number(process.env["STACK_SCHEDULED_EVERY_MS"] ?? 15 * 60_000);
  if (everyMs > 0) {
    scheduledTimer = setInterval(() => {
      stack.runScheduled().catch((err: unknown) => keep(Buffer.from(`scheduled run failed: ${String(err)}\n`)));
    }, everyMs);
    scheduledTimer.unref();
  }
  await writeFile(
    path.join(stateDir, "stack.json"),
    JSON.stringify(
      {
        apiBaseUrl,
        bucket,
        s3: { endpoint: s3.endpoint, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
      },
      null,
      2,
    ),
  );
  return stack;
}
