import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { MAX_LEASE_WAIT_SECONDS } from "../contracts/runner-protocol";
import { addressKind } from "../contracts/outbound-address";
import { PrioritySchema, type Priority } from "../contracts/service-types";

/**
 * Runner configuration, read once from the environment at startup. Every variable is optional
 * except RUNNER_TOKEN; a bad value stops the process with a message naming the variable.
 */
export interface RunnerConfig {
  apiUrl: string;
  token: string;
  runnerId: string;
  concurrency: number;
  lanes: Priority[];
  workDir: string;
  cores: number;
  pollMinMs: number;
  pollMaxMs: number;
  /** Long-poll: how long the server may hold a lease request while no task is available (0 = plain polling). */
  leaseWaitSeconds: number;
  shutdownGraceMs: number;
  enableTestHandlers: boolean;
  /** Local stacks only: the job's storage endpoint may be a loopback S3 server (never a private address). */
  allowLoopbackStorage: boolean;
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid gpu-runner configuration:\n${issues.map((i) => `  - ${i}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

const isLoopbackHost = (host: string): boolean => addressKind(host) === "loopback" || host.toLowerCase() === "localhost";

/** Empty strings count as unset, so `RUNNER_LANES=` falls back to the default. */
const unsetIfEmpty = (v: unknown): unknown => (typeof v === "string" && v.trim() === "" ? undefined : v);

const intVar = (def: number, min: number, max = Number.MAX_SAFE_INTEGER) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .regex(/^\d+$/, "must be a whole number")
      .transform(Number)
      .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`))
      .default(def),
  );

const boolVar = (def: boolean) =>
  z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .toLowerCase()
      .refine((v) => ["1", "0", "true", "false", "yes", "no", "on", "off"].includes(v), {
        message: "must be true or false",
      })
      .transform((v) => ["1", "true", "yes", "on"].includes(v))
      .default(def),
  );

const lanesVar = z.preprocess(
  unsetIfEmpty,
  z
    .string()
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s !== ""),
    )
    .pipe(
      z
        .array(z.enum(PrioritySchema.options, { error: "each lane must be one of high, normal, low" }))
        .min(1, "must name at least one lane")
        .refine((a) => new Set(a).size === a.length, "must not repeat a lane"),
    )
    .default(["high", "normal", "low"]),
);

const EnvSchema = z
  .object({
    RUNNER_API_URL: z.preprocess(
      unsetIfEmpty,
      z
        .url({ protocol: /^https?$/, error: "must be an http(s) URL" })
        // The runner sends its token on every call and is answered with storage secrets and presigned
        // URLs: never in cleartext, except to a Worker on this machine (a local stack).
        .refine((u) => new URL(u).protocol === "https:" || isLoopbackHost(new URL(u).hostname), {
          message: "must be https (plain http only to a loopback host: 127.0.0.1, [::1], localhost)",
        })
        .transform((u) => u.replace(/\/+$/, ""))
        .default("http://127.0.0.1:8787"),
    ),
    RUNNER_TOKEN: z.preprocess(unsetIfEmpty, z.string({ error: "is required (the runner token issued by the operator)" })),
    RUNNER_ID: z.preprocess(
      unsetIfEmpty,
      z.string().max(128, "must be at most 128 characters").default(`${os.hostname()}-${process.pid}`.slice(0, 128)),
    ),
    RUNNER_CONCURRENCY: intVar(1, 1, 256),
    RUNNER_LANES: lanesVar,
    RUNNER_WORK_DIR: z.preprocess(
      unsetIfEmpty,
      z
        .string()
        .transform((p) => path.resolve(p))
        .default(path.join(os.tmpdir(), "media-jobs-runner")),
    ),
    RUNNER_CORES: intVar(os.availableParallelism(), 1, 4096),
    RUNNER_POLL_MIN_MS: intVar(500, 1),
    RUNNER_POLL_MAX_MS: intVar(10_000, 1),
    RUNNER_LEASE_WAIT_SECONDS: intVar(5, 0),
    RUNNER_SHUTDOWN_GRACE_MS: intVar(30_000, 0),
    RUNNER_ENABLE_TEST_HANDLERS: boolVar(false),
    RUNNER_ALLOW_LOOPBACK_STORAGE: boolVar(false),
  })
  .refine((e) => e.RUNNER_POLL_MAX_MS >= e.RUNNER_POLL_MIN_MS, {
    path: ["RUNNER_POLL_MAX_MS"],
    message: "must be at least RUNNER_POLL_MIN_MS",
  });

/** Parses the environment; throws ConfigError listing every problem at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): RunnerConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? "environment");
        const value = env[name];
        const shown = value === undefined || name === "RUNNER_TOKEN" ? "" : ` (got ${JSON.stringify(value)})`;
        return `${name} ${i.message}${shown}`;
      }),
    );
  }
  const e = parsed.data;
  return {
    apiUrl: e.RUNNER_API_URL,
    token: e.RUNNER_TOKEN,
    runnerId: e.RUNNER_ID,
    concurrency: e.RUNNER_CONCURRENCY,
    lanes: e.RUNNER_LANES,
    workDir: e.RUNNER_WORK_DIR,
    cores: e.RUNNER_CORES,
    pollMinMs: e.RUNNER_POLL_MIN_MS,
    pollMaxMs: e.RUNNER_POLL_MAX_MS,
    leaseWaitSeconds: Math.min(e.RUNNER_LEASE_WAIT_SECONDS, MAX_LEASE_WAIT_SECONDS),
    shutdownGraceMs: e.RUNNER_SHUTDOWN_GRACE_MS,
    enableTestHandlers: e.RUNNER_ENABLE_TEST_HANDLERS,
    allowLoopbackStorage: e.RUNNER_ALLOW_LOOPBACK_STORAGE,
  };
}
