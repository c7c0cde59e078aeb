import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StepHandler } from "../../gpu-runner/handler";
import { Runner } from "../../gpu-runner/runner";
import { FakeRunnerApi } from "../support/fake-runner-api";
import { delay, startTestRunner, testConfig, type TestRunner } from "../support/runner-harness";

/** The lease loop: idle backoff, concurrency, what the runner asks for. */
describe("runner loop", () => {
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

  const leaseTimes = () => api.calls.filter((c) => c.route === "lease").map((c) => c.at);
  const gaps = (times: number[]) => times.slice(1).map((t, i) => t - (times[i] ?? 0));

  it("backs off exponentially while idle, up to the maximum", async () => {
    // random() = 1: each wait is exactly min·2^n capped at max (20, 40, 80, 160, 160…).
    runner = await startTestRunner(api, { config: { pollMinMs: 20, pollMaxMs: 160 }, random: () => 1 });
    await api.waitFor(() => leaseTimes().length >= 7, "seven lease polls");
    const g = gaps(leaseTimes());
    expect(g[0]).toBeGreaterThanOrEqual(15);
    expect(g[0]).toBeLessThan(100);
    expect(g[3]).toBeGreaterThanOrEqual(150);
    expect(g[5]).toBeGreaterThanOrEqual(150);
    expect(g[5]).toBeLessThan(400); // capped at pollMaxMs, not 640
  });

  it("jitters each idle wait between half and all of the current step", () => {
    const cfg = testConfig(api, "/tmp/unused", { pollMinMs: 100, pollMaxMs: 1_000 });
    const at = (r: number) => new Runner(cfg, { handlers: { x: async () => ({}) }, random: () => r });
    expect([0, 1, 2, 5].map((n) => at(0).backoffMs(n))).toEqual([50, 100, 200, 500]);
    expect([0, 1, 2, 5].map((n) => at(1).backoffMs(n))).toEqual([100, 200, 400, 1_000]);
  });

  it("polls again at once after getting work, resetting the backoff", async () => {
    runner = await startTestRunner(api, { config: { pollMinMs: 20, pollMaxMs: 400 }, random: () => 1 });
    await api.waitFor(() => leaseTimes().length >= 6, "the backoff to grow");
    const task = api.addTask({ step: { stages: ["one"], params: { stageMs: 1 } } });
    await api.waitForOutcome(task.taskId, 2_000);
    const n = leaseTimes().length;
    await api.waitFor(() => leaseTimes().length >= n + 2, "two more polls", 1_000);
    const t = leaseTimes();
    expect((t[n + 1] ?? 0) - (t[n] ?? 0)).toBeLessThan(100); // back at the minimum step, not 400
  });

  it("runs up to RUNNER_CONCURRENCY tasks at once", async () => {
    let active = 0;
    let peak = 0;
    const busy: StepHandler = async ({ report }) =>
      report.stage("one", async () => {
        active += 1;
        peak = Math.max(peak, active);
        await delay(150);
        active -= 1;
        return {};
      });
    const tasks = [1, 2, 3].map(() => api.addTask({ step: { handler: "busy" } }));
    runner = await startTestRunner(api, { config: { concurrency: 2 }, handlers: { busy } });
    await api.waitFor(() => tasks.every((t) => api.outcome(t.taskId) === "complete"), "all three tasks");
    expect(peak).toBe(2);
  });

  it("leases only for the handlers it has, from its configured lanes", async () => {
    const mine: StepHandler = async () => ({});
    const other = api.addTask({ step: { handler: "not-mine" } });
    const task = api.addTask({ step: { handler: "mine" } });
    runner = await startTestRunner(api, { config: { lanes: ["high", "normal"] }, handlers: { mine } });
    await api.waitForOutcome(task.taskId);
    const lease = api.calls.find((c) => c.route === "lease");
    expect(lease?.body).toEqual({ runnerId: "runner-test", lanes: ["high", "normal"], handlers: ["mine"] });
    expect(api.callsFor(other.taskId)).toEqual([]);
  });

  it("keeps polling after a lease call fails", async () => {
    api.injectStatuses("lease", [401]);
    const task = api.addTask({ step: { stages: ["one"], params: { stageMs: 1 } } });
    runner = await startTestRunner(api);
    await api.waitForOutcome(task.taskId);
    expect(runner.logs.some((l) => l.event === "lease_failed")).toBe(true);
  });
});
