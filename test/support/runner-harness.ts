import { mkdtemp, readdir, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RunnerConfig } from "../../gpu-runner/config";
import type { StepHandler } from "../../gpu-runner/handler";
import { createTestHandler } from "../../gpu-runner/services/test/handler";
import type { LogLevel } from "../../gpu-runner/log";
import { ProtocolClient } from "../../gpu-runner/protocol-client";
import { Runner } from "../../gpu-runner/runner";
import type { FakeRunnerApi } from "./fake-runner-api";

/** In-process runner wired to a FakeRunnerApi, with a private work root and captured logs. */
export interface TestRunner {
  runner: Runner;
  config: RunnerConfig;
  workRoot: string;
  logs: { level: LogLevel; event: string; fields: Record<string, unknown> }[];
  /** Shuts the runner down and removes the work root. */
  stop(): Promise<void>;
}

export async function makeTempDir(prefix = "runner-test-"): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

export function testConfig(api: FakeRunnerApi, workRoot: string, overrides: Partial<RunnerConfig> = {}): RunnerConfig {
  return {
    apiUrl: api.url,
    token: api.token,
    runnerId: "runner-test",
    concurrency: 1,
    lanes: ["high", "normal", "low"],
    workDir: workRoot,
    cores: 2,
    pollMinMs: 10,
    leaseWaitSeconds: 0,
    pollMaxMs: 40,
    shutdownGraceMs: 1_000,
    enableTestHandlers: true,
    allowLoopbackStorage: true,
    ...overrides,
  };
}

export function testClient(api: FakeRunnerApi, opts: { retries?: number; timeoutMs?: number; fetch?: typeof fetch } = {}): ProtocolClient {
  return new ProtocolClient({ baseUrl: api.url, token: api.token, retryBaseMs: 5, retryMaxMs: 20, ...opts });
}

export async function startTestRunner(
  api: FakeRunnerApi,
  opts: { config?: Partial<RunnerConfig>; handlers?: Record<string, StepHandler>; random?: () => number; fetch?: typeof fetch } = {},
): Promise<TestRunner> {
  const workRoot = await makeTempDir();
  const config = testConfig(api, workRoot, opts.config);
  const logs: TestRunner["logs"] = [];
  const runner = new Runner(config, {
    client: testClient(api, opts.fetch ? { fetch: opts.fetch } : {}),
    // The test handlers only: the production registry pulls in the media stack.
    handlers: opts.handlers ?? { "test.work": createTestHandler({ runnerId: config.runnerId }) },
    ...(opts.random ? { random: opts.random } : {}),
    log: (level, event, fields = {}) => logs.push({ level, event, fields }),
  });
  void runner.start();
  return {
    runner,
    config,
    workRoot,
    logs,
    stop: async () => {
      await runner.shutdown();
      await rm(workRoot, { recursive: true, force: true });
    },
  };
}

/** Every file and directory under `dir`, relative to it. */
export async function listTree(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map(String).sort();
}

export const delay = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
