import { describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { LeasedTask } from "../../contracts/runner-protocol";
import { call, type ApiResponse } from "./helpers/api";
import { fakeRunner, getJob, submitTranscription, waitFor, waitForStatus } from "./helpers/jobs";
import { runnerTaskStates, useMachineryTenant } from "./helpers/machinery";
import { consoleSession, unique } from "./helpers/tenant";

/**
 * POST /v1/jobs/{jobId}/cancel from every status: queued → cancelled at once; processing →
 * cancelling, then cancelled when the runner reaches a stage boundary; idempotent on cancelling
 * and cancelled; 409 `conflict` on completed and failed. The transcription pipeline is replaced
 * by a one-step test pipeline so the test can play the runner.
 */

const t = useMachineryTenant({ steps: [{ stages: ["download", "probe"] }], settings: { retry: { maxAttempts: 1, baseDelaySeconds: 0 } } });

const cancel = (jobId: string, key = t.projectKey) => call<Job>("POST", `/v1/jobs/${jobId}/cancel`, { key });

/** A job a runner is working on. */
async function processingJob(): Promise<{ job: Job; task: LeasedTask }> {
  const job = await submitTranscription(t);
  const task = await fakeRunner.leaseWhenReady(job.jobId);
  return { job: await getJob(t, job.jobId), task };
}

function expectConflict(res: ApiResponse<Job>, status: string) {
  expect(res.status).toBe(409);
  expect(res.body.data).toBeNull();
  expect(res.body.error?.code).toBe("conflict");
  expect(res.body.error?.details).toEqual([{ path: "jobId", issue: `status:${status}` }]);
}

describe("cancel a queued job", () => {
  it("is cancelled at once, with completedAt and the cancelRequested* fields of the API key", async () => {
    const job = await submitTranscription(t);
    const res = await cancel(job.jobId);
    expect(res.status).toBe(200);
    const j = res.body.data;
    expect(j.status).toBe("cancelled");
    expect(j.completedAt).toEqual(expect.any(String));
    expect(j.cancelRequestedAt).toEqual(expect.any(String));
    expect(j).toMatchObject({
      cancelRequestedByKind: "api_key",
      cancelRequestedByLabel: "ci-key",
      cancelRequestedByApiKeyId: t.projectKeyId,
      cancelRequestedByUserId: null,
      cancelMode: "graceful",
      resultSummary: null,
      error: null,
    });
  });

  it("the answer is what a later GET returns (the cancel is durable)", async () => {
    const job = await submitTranscription(t);
    const res = await cancel(job.jobId);
    expect(await getJob(t, job.jobId)).toEqual(res.body.data);
  });

  it("its task is never leased afterwards, even once dispatched", async () => {
    const job = await submitTranscription(t);
    await waitFor("the task to reach the lane", async () => (await runnerTaskStates(job.jobId)).includes("available"));
    await cancel(job.jobId);
    expect(await fakeRunner.lease()).toBeNull();
    expect(await runnerTaskStates(job.jobId)).toEqual(["dead"]);
  });

  it("a job cancelled before dispatch never reaches a runner", async () => {
    const job = await submitTranscription(t);
    await cancel(job.jobId);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await fakeRunner.lease()).toBeNull();
    expect((await getJob(t, job.jobId)).status).toBe("cancelled");
  });

  it("from a console session, cancelRequestedByKind is console (the spec's kind for the dashboard) with the user's id", async () => {
    const session = await consoleSession(t, unique("ana"));
    const job = await submitTranscription(t);
    const res = await cancel(job.jobId, session.secret);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: "cancelled",
      cancelRequestedByKind: "console",
      cancelRequestedByLabel: session.userHandle,
      cancelRequestedByUserId: session.userId,
      cancelRequestedByApiKeyId: null,
    });
  });
});

describe("cancel a processing job", () => {
  it("moves it to cancelling, with cancelRequested* set and completedAt still null", async () => {
    const { job } = await processingJob();
    expect(job.status).toBe("processing");
    const res = await cancel(job.jobId);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: "cancelling",
      completedAt: null,
      cancelMode: "graceful",
      cancelRequestedByKind: "api_key",
      cancelRequestedByApiKeyId: t.projectKeyId,
    });
    expect(res.body.data.cancelRequestedAt).toEqual(expect.any(String));
  });

  it("the runner learns of it on its heartbeat", async () => {
    const { job, task } = await processingJob();
    expect((await fakeRunner.heartbeat(task)).body.data.cancelRequested).toBe(false);
    await cancel(job.jobId);
    expect((await fakeRunner.heartbeat(task)).body.data.cancelRequested).toBe(true);
  });

  it("the runner learns of it when it reports stage events", async () => {
    const { job, task } = await processingJob();
    await cancel(job.jobId);
    const res = await fakeRunner.events(task, [{ stage: "download", event: "completed" }]);
    expect(res.body.data.cancelRequested).toBe(true);
  });

  it("the runner's cancelled ack ends it cancelled, with completedAt", async () => {
    const { job, task } = await processingJob();
    await cancel(job.jobId);
    expect((await fakeRunner.cancelled(task)).status).toBe(200);
    const j = await getJob(t, job.jobId);
    expect(j.status).toBe("cancelled");
    expect(j.completedAt).toEqual(expect.any(String));
    expect(j.processingLeaseUntil).toBeNull();
  });

  it("a stage that completes while cancelling ends the job cancelled, not completed", async () => {
    const { job, task } = await processingJob();
    await cancel(job.jobId);
    await fakeRunner.complete(task, { late: true });
    const j = await waitForStatus(t, job.jobId, "cancelled");
    expect(j.resultSummary).toBeNull();
  });
});

describe("cancel is idempotent on cancelling and cancelled", () => {
  it("cancelling: a second cancel answers 200 with the job unchanged", async () => {
    const { job } = await processingJob();
    const first = await cancel(job.jobId);
    const second = await cancel(job.jobId);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
  });

  it("cancelled: a second cancel answers 200 with the job unchanged", async () => {
    const job = await submitTranscription(t);
    const first = await cancel(job.jobId);
    const session = await consoleSession(t, unique("ana"));
    const second = await cancel(job.jobId, session.secret);
    expect(second.status).toBe(200);
    expect(second.body.data).toEqual(first.body.data);
  });
});

describe("cancel is refused on finished jobs", () => {
  it("completed: 409 conflict, and the job stays completed", async () => {
    const { job, task } = await processingJob();
    await fakeRunner.complete(task, { done: true });
    await waitForStatus(t, job.jobId, "completed");
    expectConflict(await cancel(job.jobId), "completed");
    expect((await getJob(t, job.jobId)).status).toBe("completed");
  });

  it("failed: 409 conflict, and the job stays failed", async () => {
    const { job, task } = await processingJob();
    await fakeRunner.fail(task, "duration_exceeded", false, "too long");
    await waitForStatus(t, job.jobId, "failed");
    expectConflict(await cancel(job.jobId), "failed");
    expect((await getJob(t, job.jobId)).status).toBe("failed");
  });
});

describe("cancel of an unknown job", () => {
  it("is 404 notFound", async () => {
    const res = await cancel("job_doesnotexist");
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe("notFound");
  });
});
