import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../worker/index";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import type { DispatchMessage } from "../../durable-objects/messages";
import type { LeasedTask } from "../../contracts/runner-protocol";
import { jobStub } from "../../worker/jobs/stubs";
import { call, runnerCall } from "./helpers/api";
import {
  cancelUnfinished,
  fakeRunner,
  getJob,
  patchSettings,
  submitTranscription,
  useTestPipeline,
  waitFor,
  waitForStatus,
} from "./helpers/jobs";
import { expireLease, runnerTaskStates, useMachineryTenant } from "./helpers/machinery";
import { createTenant } from "./helpers/tenant";

const t = useMachineryTenant({
  steps: [{ stages: ["download"] }],
  settings: { retry: { maxAttempts: 3, baseDelaySeconds: 0, runnerLostDelaySeconds: 0 } },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const runnerTaskCount = async (jobId: string) => (await runnerTaskStates(jobId)).length;

describe("JobDO leases and at-least-once delivery", () => {
  it("an expired lease is a failed attempt with code runner_lost and the job goes back to its lane", async () => {
    const job = await submitTranscription(t);
    await fakeRunner.leaseWhenReady(job.jobId);
    await expireLease(job.jobId);
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("queued");
    expect(j.attemptCount).toBe(1);
    expect(j.lastError?.message).toMatch(/stopped heartbeating/);
    const again = await fakeRunner.leaseWhenReady(job.jobId);
    expect(again.attempt).toBe(1);
  });

  it("a runner_lost attempt is retried after retry.runnerLostDelaySeconds, not the failure backoff", async () => {
    await patchSettings({ retry: { baseDelaySeconds: 3600 } });
    try {
      const job = await submitTranscription(t);
      await fakeRunner.leaseWhenReady(job.jobId);
      await expireLease(job.jobId);
      const again = await fakeRunner.leaseWhenReady(job.jobId);
      expect(again.attempt).toBe(1);
    } finally {
      await patchSettings({ retry: { baseDelaySeconds: 0 } });
    }
  });

  it("by default a dead runner's work is back in its lane within 30 s, with heartbeats well inside the lease", () => {
    const { runner, retry } = DEFAULT_SETTINGS;
    // The alarm fires 250 ms after the lease expires; leasing again takes one runner poll more.
    expect(runner.leaseSeconds + 0.25 + retry.runnerLostDelaySeconds).toBeLessThan(25);
    expect(runner.heartbeatIntervalSeconds * 3).toBeLessThanOrEqual(runner.leaseSeconds);
  });

  it("a heartbeat extends the lease and processingLeaseUntil", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await sleep(50);
    const hb = await fakeRunner.heartbeat(task);
    expect(hb.status).toBe(200);
    expect(Date.parse(hb.body.data.leaseUntil)).toBeGreaterThan(Date.parse(task.leaseUntil));
    expect((await getJob(t, job.jobId)).processingLeaseUntil).toBe(hb.body.data.leaseUntil);
  });

  it("a heartbeat moves processingLeaseUntil but not updatedAt: updatedAt changes only when another field does", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    const before = await getJob(t, job.jobId);
    await sleep(20);
    await fakeRunner.heartbeat(task);
    const after = await getJob(t, job.jobId);
    expect(after.processingLeaseUntil).not.toBe(before.processingLeaseUntil);
    expect(after.updatedAt).toBe(before.updatedAt);
    await fakeRunner.events(task, [{ stage: "download", event: "started" }]);
    expect((await getJob(t, job.jobId)).updatedAt).not.toBe(before.updatedAt);
  });

  it("a runner whose lease was lost is answered 409 leaseLost and its result is not accepted", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await expireLease(job.jobId);
    const late = await fakeRunner.complete(task, { late: true });
    expect(late.status).toBe(409);
    expect(late.body.error?.code).toBe("leaseLost");
    expect((await getJob(t, job.jobId)).status).toBe("queued");
  });

  it("a duplicate complete is answered ok and changes nothing", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await fakeRunner.complete(task, { n: 1 });
    const first = await getJob(t, job.jobId);
    const dup = await fakeRunner.complete(task, { n: 2 });
    expect(dup.status).toBe(200);
    const second = await getJob(t, job.jobId);
    expect(second.resultSummary).toEqual({ test: { n: 1 } });
    expect(second.updatedAt).toBe(first.updatedAt);
  });

  it("the create answers the job as it entered the queue, even when a waiting runner leases it at once", async () => {
    const waiting = runnerCall<{ task: LeasedTask | null }>("/lease", {
      runnerId: "runner-waiting",
      handlers: ["test.work"],
      waitSeconds: 5,
    });
    const job = await submitTranscription(t);
    expect(job.status).toMatch(/^(pending|queued)$/);
    const leased = (await waiting).body.data.task;
    expect(leased?.jobId).toBe(job.jobId);
  });

  it("a duplicated dispatch message creates one runner task", async () => {
    const job = await submitTranscription(t);
    await waitFor("the first dispatch", async () => (await runnerTaskCount(job.jobId)) === 1);
    const batch = createMessageBatch<DispatchMessage>("media-jobs-dispatch", [
      { id: "m1", timestamp: new Date(), attempts: 1, body: { jobId: job.jobId, attempt: 0, stepIndex: 0 } },
      { id: "m2", timestamp: new Date(), attempts: 1, body: { jobId: job.jobId, attempt: 0, stepIndex: 0 } },
    ]);
    const ctx = createExecutionContext();
    await worker.queue(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks.sort()).toEqual(["m1", "m2"]);
    expect(result.retryMessages).toEqual([]);
    expect(await runnerTaskCount(job.jobId)).toBe(1);
  });

  it("a stale dispatch message (an earlier attempt) is acknowledged and ignored", async () => {
    const job = await submitTranscription(t);
    await fakeRunner.fail(await fakeRunner.leaseWhenReady(job.jobId));
    const out = await jobStub(env, job.jobId).dispatch(0, 0);
    expect(out).toEqual({ action: "none", reason: "stale dispatch message" });
  });

  it("a released task returns to its lane for the same attempt without counting a failure", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    const res = await fakeRunner.release(task);
    expect(res.status).toBe(200);
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("queued");
    expect(j.attemptCount).toBe(0);
    const again = await fakeRunner.leaseWhenReady(job.jobId);
    expect(again.attempt).toBe(0);
  });

  it("a released task leased again is completed by its next runner (the same task id under a new lease)", async () => {
    const job = await submitTranscription(t);
    const first = await fakeRunner.leaseWhenReady(job.jobId);
    await fakeRunner.release(first);
    const again = await fakeRunner.leaseWhenReady(job.jobId);
    expect((await fakeRunner.complete(again, { by: "next" })).status).toBe(200);
    const done = await getJob(t, job.jobId);
    expect(done.status).toBe("completed");
    expect(done.resultSummary).toEqual({ test: { by: "next" } });
  });

  it("runner routes refuse a customer key", async () => {
    const res = await call("POST", "/runner/v1/lease", { key: t.projectKey, body: { runnerId: "x", handlers: ["test.work"] } });
    expect(res.status).toBe(401);
  });

  it("an unknown task id is answered 409 leaseLost", async () => {
    const res = await runnerCall("/tasks/rtk_nope/heartbeat", { leaseToken: "x" });
    expect(res.status).toBe(409);
    expect(res.body.error?.code).toBe("leaseLost");
  });
});

describe("lanes", () => {
  it("a runner leases from the highest-priority lane first", async () => {
    const free = await createTenant({ plan: "free" });
    const enterprise = await createTenant({ plan: "enterprise" });
    const low = await submitTranscription(free);
    const high = await submitTranscription(enterprise);
    await waitFor("both tasks", async () => (await runnerTaskCount(low.jobId)) + (await runnerTaskCount(high.jobId)) === 2);
    const first = await fakeRunner.lease();
    expect(first?.jobId).toBe(high.jobId);
    const second = await fakeRunner.lease();
    expect(second?.jobId).toBe(low.jobId);
    await cancelUnfinished(free);
    await cancelUnfinished(enterprise);
  });

  it("a runner serving only the low lane never gets high-priority work", async () => {
    const enterprise = await createTenant({ plan: "enterprise" });
    const high = await submitTranscription(enterprise);
    await waitFor("the task", async () => (await runnerTaskCount(high.jobId)) === 1);
    expect(await fakeRunner.lease(["test.work"], "low-only", ["low"])).toBeNull();
    await cancelUnfinished(enterprise);
  });
});

describe("steps that run in the Worker", () => {
  it("a worker-executor step runs in the queue consumer and completes the job", async () => {
    const ws = await createTenant();
    await useTestPipeline("transcription", [{ executor: "worker", stages: ["download", "probe"] }]);
    const job = await submitTranscription(ws);
    const done = await waitForStatus(ws, job.jobId, "completed");
    expect(done.resultSummary).toMatchObject({ test: { executor: "worker", attempt: 0 } });
    await useTestPipeline("transcription", [{ stages: ["download"] }]);
  });

  it("a multi-step pipeline runs its steps in order and publishes resultSummary only at the end", async () => {
    const ws = await createTenant();
    await useTestPipeline("transcription", [{ stages: ["download"] }, { stages: ["probe"] }]);
    const job = await submitTranscription(ws);
    await fakeRunner.complete(await fakeRunner.leaseWhenReady(job.jobId), { step: 1 });
    const between = await getJob(ws, job.jobId);
    expect(between.status).toBe("processing");
    expect(between.resultSummary).toBeNull();
    await fakeRunner.complete(await fakeRunner.leaseWhenReady(job.jobId), { step: 2 });
    const done = await getJob(ws, job.jobId);
    expect(done.status).toBe("completed");
    await useTestPipeline("transcription", [{ stages: ["download"] }]);
  });
});

describe("repeated runner reports", () => {
  it.each([
    ["fail", (task: Parameters<typeof fakeRunner.fail>[0]) => fakeRunner.fail(task)],
    ["release", (task: Parameters<typeof fakeRunner.release>[0]) => fakeRunner.release(task)],
  ] as const)("a repeated %s after the first was accepted is answered ok and changes nothing", async (_name, report) => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await report(task);
    const before = await getJob(t, job.jobId);
    const again = await report(task);
    expect(again.status).toBe(200);
    const after = await getJob(t, job.jobId);
    expect(after.attemptCount).toBe(before.attemptCount);
    expect(after.updatedAt).toBe(before.updatedAt);
  });

  it("a repeated progress event (same stage, event and time) is recorded once", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    const at = new Date().toISOString();
    await fakeRunner.events(task, [{ stage: "download", event: "started", at }]);
    await fakeRunner.events(task, [{ stage: "download", event: "started", at }]);
    const view = await jobStub(env, job.jobId).getProgress();
    expect(view?.progress.filter((p) => p.stage === "download")).toHaveLength(1);
  });

  it("a progress report extends the lease like a heartbeat", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await sleep(50);
    await fakeRunner.events(task, [{ stage: "download", event: "started" }]);
    expect(Date.parse((await getJob(t, job.jobId)).processingLeaseUntil ?? "")).toBeGreaterThan(Date.parse(task.leaseUntil));
  });
});
