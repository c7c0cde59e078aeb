import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StepHandler } from "../../gpu-runner/handler";
import { runToolOk } from "../../gpu-runner/media/spawn";
import { createTestHandler } from "../../gpu-runner/services/test/handler";
import { recordSourceDuration } from "../../gpu-runner/task-scope";
import { taskDirPrefix } from "../../gpu-runner/work-dirs";
import { FakeRunnerApi } from "../support/fake-runner-api";
import { delay, listTree, makeTempDir, startTestRunner, type TestRunner } from "../support/runner-harness";

/**
 * Wall-clock limits on a shared runner (`runner.timeLimits`, `runner.cancelGraceSeconds`): a child
 * process or a stage that outlives its limit is stopped and the attempt fails `processing_timeout`;
 * a cancel stops a stuck stage after its grace; the work directory goes on every way out, and the
 * runner serves its next task.
 */

/** Limits small enough for a test: 0.3 s, plus 0.5 s per second of measured source. */
const TIGHT = { runner: { timeLimits: { baseSeconds: 0.3, perSourceSecond: 0.5 } } };

/** Scratch directories of the tests themselves (pid files, a work root), removed after each test. */
const made: string[] = [];
const scratchDir = async (prefix: string) => {
  const dir = await makeTempDir(prefix);
  made.push(dir);
  return dir;
};
const removeScratch = () => Promise.all(made.splice(0).map((d) => rm(d, { recursive: true, force: true })));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Every test gets its own fake protocol server; a runner a test starts is stopped after it.
let api: FakeRunnerApi;
let runner: TestRunner | undefined;

beforeEach(async () => {
  api = await FakeRunnerApi.start();
});
afterEach(async () => {
  await runner?.stop();
  runner = undefined;
  await api.close();
  await removeScratch();
});

describe("runner: time limits", () => {
  const start = async (handlers: Record<string, StepHandler>) => {
    runner = await startTestRunner(api, { handlers: { ...handlers, "test.work": createTestHandler({ runnerId: "runner-test" }) } });
    return runner;
  };
  const failure = (taskId: string) => api.callsFor(taskId).find((c) => c.route === "fail")?.body.error;
  /** The outcome is reported before the work directory is removed: wait for the task to be over. */
  const over = (r: TestRunner) => api.waitFor(() => r.runner.activeTasks === 0, "the task to be over");

  it("a child process that outlives runner.timeLimits is killed with its whole group and the attempt fails processing_timeout naming the tool", async () => {
    const stuck: StepHandler = async ({ signal }) => {
      await runToolOk("sh", ["-c", "sleep 60"], { signal });
      return {};
    };
    const task = api.addTask({ step: { handler: "stuck" }, settings: TIGHT });
    const r = await start({ stuck });
    await api.waitForOutcome(task.taskId);
    expect(failure(task.taskId)).toEqual({
      code: "processing_timeout",
      message: expect.stringMatching(/^sh was stopped after 0\.\d s: its time limit is 0\.3 s \(runner\.timeLimits\.baseSeconds 0\.3 s/),
      retryable: false,
    });
    await over(r);
    expect(await listTree(r.workRoot)).toEqual([]);
  });

  it("kills the grandchildren of a timed-out child too", async () => {
    const pids = path.join(await scratchDir("pids-"), "grandchild.pid");
    const stuck: StepHandler = async ({ signal }) => {
      await runToolOk("sh", ["-c", `sleep 60 & echo $! > ${pids}; wait`], { signal });
      return {};
    };
    const task = api.addTask({ step: { handler: "stuck" }, settings: TIGHT });
    await start({ stuck });
    await api.waitForOutcome(task.taskId);
    const pid = Number((await readFile(pids, "utf8")).trim());
    await api.waitFor(() => !alive(pid), "the grandchild to be gone");
  });

  it("a stage that never settles fails processing_timeout naming the stage, and the runner serves its next task", async () => {
    const hangs: StepHandler = async ({ report }) => {
      await report.stage("one", () => new Promise<never>(() => undefined));
      return {};
    };
    const stuck = api.addTask({ step: { handler: "hangs" }, settings: TIGHT });
    const next = api.addTask({ step: { stages: ["one"], params: { stageMs: 5 } } });
    const r = await start({ hangs });
    await api.waitForOutcome(next.taskId);
    expect(api.timeline(stuck.taskId)).toEqual(["events:one:started", "events:one:failed", "fail"]);
    expect(failure(stuck.taskId)).toEqual({
      code: "processing_timeout",
      message: expect.stringMatching(/^stage one was stopped after 0\.\d s: its time limit is 0\.3 s/),
      retryable: false,
    });
    expect(api.outcome(next.taskId)).toBe("complete");
    await over(r);
    expect(await listTree(r.workRoot)).toEqual([]);
  });

  it("kills the child processes of a stage stopped by its limit", async () => {
    const pids = path.join(await scratchDir("pids-"), "child.pid");
    const hangs: StepHandler = async ({ report }) => {
      // The stage's own work never settles; the child it started must not outlive it.
      await report.stage("one", async () => {
        void runToolOk("sh", ["-c", `echo $$ > ${pids}; sleep 60`]).catch(() => undefined);
        return new Promise<never>(() => undefined);
      });
      return {};
    };
    const task = api.addTask({ step: { handler: "hangs" }, settings: { runner: { timeLimits: { baseSeconds: 0.5 } } } });
    await start({ hangs });
    await api.waitForOutcome(task.taskId);
    const pid = Number((await readFile(pids, "utf8")).trim());
    await api.waitFor(() => !alive(pid), "the stage's child to be gone");
  });

  it("a stage's limit grows with the source duration measured while it runs", async () => {
    const probes: StepHandler = async ({ report }) => {
      // Started with the base (0.3 s); the probe measures 2 s of source: 0.3 + 0.5 × 2 = 1.3 s.
      await report.stage("one", async () => {
        recordSourceDuration(2);
        await delay(700);
      });
      return { ok: true };
    };
    const task = api.addTask({ step: { handler: "probes" }, settings: TIGHT });
    await start({ probes });
    await api.waitForOutcome(task.taskId);
    expect(api.outcome(task.taskId)).toBe("complete");
  });

  it("a child writes its temporary files (TMPDIR) into the task's work directory, which goes with the timed-out task", async () => {
    const marker = `leak-${process.pid}-${Date.now()}`;
    const leaks: StepHandler = async ({ signal }) => {
      await runToolOk("sh", ["-c", `echo x > "$TMPDIR/${marker}"; sleep 60`], { signal });
      return {};
    };
    const task = api.addTask({ step: { handler: "leaks" }, settings: TIGHT });
    const r = await start({ leaks });
    await api.waitForOutcome(task.taskId);
    expect(failure(task.taskId)?.code).toBe("processing_timeout");
    await over(r);
    expect(await listTree(r.workRoot)).toEqual([]);
    expect(existsSync(path.join(os.tmpdir(), marker))).toBe(false);
  });
});

describe("runner: a cancel stops a stuck stage", () => {
  it("a stage still running runner.cancelGraceSeconds after the cancel is stopped, its child killed, and the task reports cancelled", async () => {
    const pids = path.join(await scratchDir("pids-"), "child.pid");
    const stuck: StepHandler = async ({ report, signal }) => {
      await report.stage("one", () => runToolOk("sh", ["-c", `echo $$ > ${pids}; sleep 60`], { signal }));
      return {};
    };
    const task = api.addTask({ heartbeatIntervalSec: 0.02, step: { handler: "stuck" }, settings: { runner: { cancelGraceSeconds: 0.2 } } });
    runner = await startTestRunner(api, { handlers: { stuck } });
    await api.waitForEvent(task.taskId, "events:one:started");
    api.requestCancel(task.taskId, "heartbeat");
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual(["events:one:started", "cancelled"]);
    const pid = Number((await readFile(pids, "utf8")).trim());
    await api.waitFor(() => !alive(pid), "the stage's child to be gone");
    await api.waitFor(() => runner!.runner.activeTasks === 0, "the task to be over");
    expect(await listTree(runner.workRoot)).toEqual([]);
  });

  it("a stage that ends within the grace still ends: the cancel stays graceful", async () => {
    const task = api.addTask({
      heartbeatIntervalSec: 0.02,
      step: { stages: ["one", "two"], params: { stageMs: 200 } },
      settings: { runner: { cancelGraceSeconds: 5 } },
    });
    runner = await startTestRunner(api);
    await api.waitForEvent(task.taskId, "events:one:started");
    api.requestCancel(task.taskId, "heartbeat");
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual(["events:one:started", "events:one:completed", "cancelled"]);
  });
});

describe("runner start: leftovers of a crash", () => {
  it("a runner that starts removes the task directories a runner of this machine left, and nothing a live runner or anyone else owns", async () => {
    const root = await scratchDir("work-root-");
    // A process that has exited: its pid names no runner any more.
    const dead = (await import("node:child_process")).spawnSync("true").pid!;
    const crashed = path.join(root, `${taskDirPrefix("tsk_crashed", dead)}abc123`);
    const mine = path.join(root, `${taskDirPrefix("tsk_restarted")}def456`);
    const live = path.join(root, `${taskDirPrefix("tsk_live", process.ppid)}ghi789`);
    const other = path.join(root, "operator-notes");
    for (const dir of [crashed, mine, live, other]) {
      await mkdir(dir);
      await writeFile(path.join(dir, "source"), "x");
    }
    runner = await startTestRunner(api, { config: { workDir: root } });
    await api.waitFor(() => runner!.logs.some((l) => l.event === "work_dir_swept"), "the sweep");
    expect((await listTree(root)).filter((f) => !f.includes("/") && !f.includes(path.sep))).toEqual(
      [path.basename(live), "operator-notes"].sort(),
    );
    expect(runner.logs.find((l) => l.event === "work_dir_swept")?.fields["removed"]).toEqual(
      [path.basename(crashed), path.basename(mine)].sort(),
    );
  });
});
