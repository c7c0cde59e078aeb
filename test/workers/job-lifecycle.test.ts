import { describe, expect, it } from "vitest";
import { call } from "./helpers/api";
import { fakeRunner, getJob, submitTranscription, waitForStatus } from "./helpers/jobs";
import { useMachineryTenant } from "./helpers/machinery";
import { consoleSession } from "./helpers/tenant";

const t = useMachineryTenant({ steps: [{ stages: ["download", "probe"] }], settings: { retry: { maxAttempts: 3, baseDelaySeconds: 0 } } });

describe("job lifecycle through a runner", () => {
  it("a leased job is processing and its lease is exposed as processingLeaseUntil", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("processing");
    expect(j.processingLeaseUntil).toBe(task.leaseUntil);
    expect(j.startedAt).not.toBeNull();
  });

  it("a completed step completes the job with its resultSummary and clears errors", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await fakeRunner.events(task, [
      { stage: "download", event: "started" },
      { stage: "download", event: "completed" },
    ]);
    const res = await fakeRunner.complete(task, { hello: "world" });
    expect(res.status).toBe(200);
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("completed");
    expect(j.resultSummary).toEqual({ test: { hello: "world" } });
    expect(j.error).toBeNull();
    expect(j.lastError).toBeNull();
    expect(j.completedAt).not.toBeNull();
  });

  it("a retryable failure re-queues with attemptCount+1, lastError set and error null", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await fakeRunner.fail(task, "processing_failed", true, "transient");
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("queued");
    expect(j.attemptCount).toBe(1);
    expect(j.lastError?.message).toBe("transient");
    expect(j.error).toBeNull();
  });

  it("a retry then success completes the job", async () => {
    const job = await submitTranscription(t);
    await fakeRunner.fail(await fakeRunner.leaseWhenReady(job.jobId), "processing_failed", true);
    const second = await fakeRunner.leaseWhenReady(job.jobId);
    expect(second.attempt).toBe(1);
    await fakeRunner.complete(second);
    const j = await waitForStatus(t, job.jobId, "completed");
    expect(j.attemptCount).toBe(1);
    expect(j.lastError).toBeNull();
  });

  it("exhausted retries fail the job with error and lastError both set", async () => {
    const job = await submitTranscription(t);
    for (let i = 0; i < 3; i++) await fakeRunner.fail(await fakeRunner.leaseWhenReady(job.jobId), "processing_failed", true, `fail ${i}`);
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("failed");
    expect(j.error).toEqual({ code: "processing_failed", message: "fail 2" });
    expect(j.lastError?.message).toBe("fail 2");
    expect(j.attemptCount).toBe(2);
  });

  it("a non-retryable code fails at once without retries", async () => {
    const job = await submitTranscription(t);
    await fakeRunner.fail(
      await fakeRunner.leaseWhenReady(job.jobId),
      "duration_exceeded",
      true,
      "source duration 3601.0 s exceeds the maximum of 3600 s",
    );
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("failed");
    expect(j.attemptCount).toBe(0);
    expect(j.error?.code).toBe("duration_exceeded");
  });

  it("progress is archived into attemptHistory on retry (console view)", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    await fakeRunner.events(task, [
      { stage: "download", event: "started" },
      { stage: "download", event: "failed", error: { code: "processing_failed", message: "x" } },
    ]);
    await fakeRunner.fail(task);
    const session = await consoleSession(t, "ana");
    const progress = await call<any>("GET", `/v1/jobs/${job.jobId}/progress`, { key: session.secret });
    expect(progress.status).toBe(200);
    expect(progress.body.data.progress).toEqual([]);
    expect(progress.body.data.attemptHistory).toHaveLength(1);
    expect(progress.body.data.attemptHistory[0].progress.map((p: any) => p.event)).toEqual(["started", "failed"]);
  });
});
