import { access } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StepFailure } from "../../contracts/step-failure";
import type { StepHandler } from "../../gpu-runner/handler";
import { FakeRunnerApi } from "../support/fake-runner-api";
import { delay, listTree, startTestRunner, type TestRunner } from "../support/runner-harness";

/** One leased task, run by an in-process runner against the fake protocol server. */
describe("runner: one task", () => {
  let api: FakeRunnerApi;
  let runner: TestRunner | undefined;

  beforeEach(async () => {
    api = await FakeRunnerApi.start();
  });
  afterEach(async () => {
    await runner?.stop();
    runner = undefined;
    await api.close();
  });

  const start = async (opts: Parameters<typeof startTestRunner>[1] = {}) => {
    runner = await startTestRunner(api, opts);
    return runner;
  };

  it("posts started/completed for each stage in order, then complete with the handler's result", async () => {
    const task = api.addTask({ step: { stages: ["one", "two", "three"], params: { stageMs: 5 } }, input: { a: 1 } });
    await start();
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual([
      "events:one:started",
      "events:one:completed",
      "events:two:started",
      "events:two:completed",
      "events:three:started",
      "events:three:completed",
      "complete",
    ]);
    const complete = api.callsFor(task.taskId).find((c) => c.route === "complete");
    expect(complete?.body).toEqual({ leaseToken: task.leaseToken, result: { echo: { a: 1 }, attempt: 0, runnerId: "runner-test" } });
  });

  it("reports a StepFailure with its code and retryable flag", async () => {
    const task = api.addTask({
      step: { stages: ["one", "two"], params: { stageMs: 5, failAttempts: 1, failCode: "unsupported_media", failRetryable: false } },
    });
    await start();
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual(["events:one:started", "events:one:failed", "fail"]);
    const calls = api.callsFor(task.taskId);
    expect(calls.find((c) => c.route === "events" && c.body.events?.[0]?.event === "failed")?.body.events?.[0]?.error).toEqual({
      code: "unsupported_media",
      message: expect.stringContaining("failing attempt 0"),
    });
    expect(calls.find((c) => c.route === "fail")?.body.error).toEqual({
      code: "unsupported_media",
      message: expect.any(String),
      retryable: false,
    });
  });

  it("stops failing once the attempt reaches failAttempts", async () => {
    const task = api.addTask({ attempt: 2, step: { params: { stageMs: 1, failAttempts: 2 } } });
    await start();
    await api.waitForOutcome(task.taskId);
    expect(api.outcome(task.taskId)).toBe("complete");
  });

  it("a result the Worker refuses (422) fails the task, not retried, instead of waiting out the lease", async () => {
    const task = api.addTask({ step: { stages: ["one"], params: { stageMs: 5 } } });
    api.injectStatuses("complete", [422]);
    await start();
    await api.waitForOutcome(task.taskId);
    expect(api.outcome(task.taskId)).toBe("fail");
    expect(api.callsFor(task.taskId).find((c) => c.route === "fail")?.body.error).toEqual({
      code: "processing_failed",
      message: expect.stringContaining("refused the step's result"),
      retryable: false,
    });
  });

  it("reports an unknown error as processing_failed, retryable", async () => {
    const boom: StepHandler = async ({ report }) => report.stage("one", async () => Promise.reject(new Error("disk on fire")));
    const task = api.addTask({ step: { handler: "boom" } });
    await start({ handlers: { boom } });
    await api.waitForOutcome(task.taskId);
    const fail = api.callsFor(task.taskId).find((c) => c.route === "fail");
    expect(fail?.body.error).toEqual({ code: "processing_failed", message: "disk on fire", retryable: true });
  });

  it("a cancel learned on heartbeat stops work after the current stage and posts cancelled", async () => {
    const task = api.addTask({ heartbeatIntervalSec: 0.02, step: { stages: ["one", "two", "three"], params: { stageMs: 150 } } });
    await start();
    await api.waitForEvent(task.taskId, "events:one:started");
    api.requestCancel(task.taskId, "heartbeat");
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual(["events:one:started", "events:one:completed", "cancelled"]);
  });

  it("a cancel learned from the events answer stops work after the current stage", async () => {
    // Heartbeats far apart: only the events answers can carry the flag.
    const task = api.addTask({ heartbeatIntervalSec: 60, step: { stages: ["one", "two"], params: { stageMs: 100 } } });
    await start();
    await api.waitForEvent(task.taskId, "events:one:started");
    api.requestCancel(task.taskId, "events");
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual(["events:one:started", "events:one:completed", "cancelled"]);
  });

  it("a lost lease aborts the work and nothing more is reported for the task", async () => {
    let aborted = false;
    const slow: StepHandler = async ({ report, signal }) => {
      signal.addEventListener("abort", () => (aborted = true));
      await report.stage("one", () => delay(10));
      await report.stage("two", () => new Promise((_r, reject) => signal.addEventListener("abort", () => reject(signal.reason))));
      return {};
    };
    const task = api.addTask({ heartbeatIntervalSec: 0.02, step: { handler: "slow" } });
    const r = await start({ handlers: { slow } });
    await api.waitForEvent(task.taskId, "events:two:started");
    api.loseLease(task.taskId);
    await api.waitFor(() => aborted && r.runner.activeTasks === 0, "the task to stop");
    const after = api.callsFor(task.taskId).filter((c) => c.status !== 200);
    expect(after.map((c) => c.route)).toEqual(["heartbeat"]); // the one call that learned of the loss
    await delay(100); // nothing trickles in later
    expect(api.callsFor(task.taskId).filter((c) => c.status !== 200)).toHaveLength(1);
    expect(api.timeline(task.taskId)).toEqual(["events:one:started", "events:one:completed", "events:two:started"]);
    expect(r.logs.some((l) => l.event === "lease_lost")).toBe(true);
    expect(await listTree(r.workRoot)).toEqual([]);
  });

  it("a heartbeat that gets no answer is given up after the heartbeat interval, and its retry renews the lease", async () => {
    // Only the first heartbeat hangs; with the client's 15 s default it would hold the next beat
    // back past a 20 s lease.
    let hungFor: number | undefined;
    const firstHeartbeatHangs: typeof fetch = (input, init) => {
      if (hungFor === undefined && String(input).endsWith("/heartbeat")) {
        const from = Date.now();
        hungFor = -1;
        return new Promise((_resolve, reject) =>
          init?.signal?.addEventListener("abort", () => {
            hungFor = Date.now() - from;
            reject(init.signal?.reason);
          }),
        );
      }
      return fetch(input, init);
    };
    const task = api.addTask({ heartbeatIntervalSec: 1, step: { stages: ["one"], params: { stageMs: 3_500 } } });
    await start({ fetch: firstHeartbeatHangs });
    await api.waitForOutcome(task.taskId);
    expect(hungFor).toBeGreaterThanOrEqual(900);
    expect(hungFor).toBeLessThan(2_000);
    expect(
      api
        .callsFor(task.taskId)
        .filter((c) => c.route === "heartbeat")
        .map((c) => c.status)[0],
    ).toBe(200);
    expect(api.outcome(task.taskId)).toBe("complete");
  });

  it("a lease lost on an events call aborts the task and nothing more is reported", async () => {
    // Heartbeats far apart: the loss is learned when stage one reports completed.
    const task = api.addTask({ heartbeatIntervalSec: 60, step: { stages: ["one", "two"], params: { stageMs: 100 } } });
    const r = await start();
    await api.waitForEvent(task.taskId, "events:one:started");
    api.loseLease(task.taskId);
    await api.waitFor(() => r.runner.activeTasks === 0, "the task to stop");
    await delay(50);
    expect(api.callsFor(task.taskId).map((c) => `${c.route}:${c.status}`)).toEqual(["events:200", "events:409"]);
  });

  it("deletes the work directory after success", async () => {
    let seen: string | undefined;
    const writes: StepHandler = async (ctx) => {
      seen = ctx.workDir;
      await access(ctx.workDir);
      return ctx.report.stage("one", async () => ({}));
    };
    const task = api.addTask({ step: { handler: "writes" } });
    const r = await start({ handlers: { writes } });
    await api.waitForOutcome(task.taskId);
    await api.waitFor(() => r.runner.activeTasks === 0, "the task to settle");
    expect(seen?.startsWith(r.workRoot)).toBe(true);
    expect(await listTree(r.workRoot)).toEqual([]);
  });

  it("deletes the work directory after failure", async () => {
    const task = api.addTask({ step: { stages: ["one", "two"], params: { stageMs: 1, failAttempts: 1, failStage: "two" } } });
    const r = await start();
    await api.waitForOutcome(task.taskId);
    await api.waitFor(() => r.runner.activeTasks === 0, "the task to settle");
    expect(api.outcome(task.taskId)).toBe("fail");
    expect(await listTree(r.workRoot)).toEqual([]);
  });

  it("fails a task whose step throws StepFailure outside any stage without a stage event", async () => {
    const early: StepHandler = async () => {
      throw new StepFailure("source_not_found", "no such object", false);
    };
    const task = api.addTask({ step: { handler: "early" } });
    await start({ handlers: { early } });
    await api.waitForOutcome(task.taskId);
    expect(api.timeline(task.taskId)).toEqual(["fail"]);
  });
});
