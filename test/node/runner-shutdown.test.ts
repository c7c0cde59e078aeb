import { spawn, type ChildProcess } from "node:child_process";
import { rm } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DUPLICATE_SIGNAL_MS } from "../../gpu-runner/stop-signals";
import { FakeRunnerApi } from "../support/fake-runner-api";
import { listTree, makeTempDir } from "../support/runner-harness";

/**
 * Shutdown, with the runner as a real child process (`node --import tsx gpu-runner/main.ts`, as
 * the local stack starts it) so signals and exit codes are the real ones. Not through `npx`,
 * `npm run` or tsx's CLI: each is a process in between that repeats or swallows signals.
 */
const TSX_LOADER = import.meta.resolve("tsx");

interface RunnerProcess {
  child: ChildProcess;
  /** Parsed JSON log lines from stdout. */
  logs: { event: string; [k: string]: unknown }[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function spawnRunner(api: FakeRunnerApi, workDir: string, env: Record<string, string>): RunnerProcess {
  const child = spawn(process.execPath, ["--import", TSX_LOADER, "gpu-runner/main.ts"], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      RUNNER_API_URL: api.url,
      RUNNER_TOKEN: api.token,
      RUNNER_ID: "runner-child",
      RUNNER_WORK_DIR: workDir,
      RUNNER_ENABLE_TEST_HANDLERS: "true",
      RUNNER_POLL_MIN_MS: "20",
      RUNNER_POLL_MAX_MS: "100",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const logs: RunnerProcess["logs"] = [];
  let buf = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    buf += d;
    let i: number;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        logs.push(JSON.parse(line) as RunnerProcess["logs"][number]);
      } catch {
        /* not a log line (npm noise) */
      }
    }
  });
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      if (code !== 0 && stderr.trim()) console.error(stderr);
      resolve({ code, signal });
    }),
  );
  return { child, logs, exited };
}

describe("runner shutdown", () => {
  let api: FakeRunnerApi;
  let workDir: string;
  let proc: RunnerProcess | undefined;

  beforeEach(async () => {
    api = await FakeRunnerApi.start();
    workDir = await makeTempDir("runner-shutdown-");
  });
  afterEach(async () => {
    if (proc && proc.child.exitCode === null && proc.child.signalCode === null) {
      proc.child.kill("SIGKILL");
      await proc.exited;
    }
    proc = undefined;
    await api.close();
    await rm(workDir, { recursive: true, force: true });
  });

  const startedTask = async (stageMs: number, env: Record<string, string>) => {
    const task = api.addTask({ heartbeatIntervalSec: 0.2, step: { stages: ["one", "two"], params: { stageMs } } });
    proc = spawnRunner(api, workDir, env);
    await api.waitForEvent(task.taskId, "events:one:started", 15_000);
    return { task, proc };
  };

  it("SIGTERM releases a task that does not finish within the grace period, then exits 0", async () => {
    const { task, proc } = await startedTask(60_000, { RUNNER_SHUTDOWN_GRACE_MS: "300" });
    proc.child.kill("SIGTERM");
    const exit = await proc.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(api.outcome(task.taskId)).toBe("release");
    expect(api.callsFor(task.taskId).map((c) => c.route)).not.toContain("fail");
    expect(api.timeline(task.taskId).at(-1)).toBe("release");
    expect(proc.logs.map((l) => l.event)).toContain("released");
    expect(await listTree(workDir)).toEqual([]);
  });

  it("SIGTERM lets a task that finishes within the grace period complete, then exits 0", async () => {
    const { task, proc } = await startedTask(400, { RUNNER_SHUTDOWN_GRACE_MS: "10000" });
    const signalledAt = api.now();
    proc.child.kill("SIGTERM");
    const exit = await proc.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(api.outcome(task.taskId)).toBe("complete");
    expect(api.callsFor(task.taskId).map((c) => c.route)).not.toContain("release");
    // Busy at concurrency 1 when signalled, and no new lease after it.
    expect(api.calls.filter((c) => c.route === "lease" && c.at > signalledAt)).toEqual([]);
  });

  it("a signal repeated at once (one Ctrl-C, repeated by npm and tsx) counts once: the task is still released, exit 0", async () => {
    const { task, proc } = await startedTask(60_000, { RUNNER_SHUTDOWN_GRACE_MS: "300" });
    proc.child.kill("SIGINT");
    proc.child.kill("SIGINT");
    proc.child.kill("SIGTERM");
    const exit = await proc.exited;
    expect(exit).toEqual({ code: 0, signal: null });
    expect(api.outcome(task.taskId)).toBe("release");
    expect(proc.logs.map((l) => l.event)).not.toContain("exit_now");
  });

  it("a second signal exits at once", async () => {
    const { proc } = await startedTask(60_000, { RUNNER_SHUTDOWN_GRACE_MS: "60000" });
    proc.child.kill("SIGTERM");
    // A second Ctrl-C, not a repeat of the first one.
    await new Promise((r) => setTimeout(r, DUPLICATE_SIGNAL_MS + 200));
    const t0 = Date.now();
    proc.child.kill("SIGTERM");
    const exit = await proc.exited;
    expect(Date.now() - t0).toBeLessThan(3_000);
    expect(exit.code).not.toBe(0);
  });
});
