import { beforeAll, describe, expect, it } from "vitest";
import type { Job, JobProgressView } from "../../contracts/job";
import { call, expectError, runnerCall } from "./helpers/api";
import { fakeRunner, getJob, patchSettings, submitTranscription, useTestPipeline, waitFor, waitForStatus } from "./helpers/jobs";
import { testS3 } from "./helpers/s3";
import { createTenant, type Tenant } from "./helpers/tenant";

/**
 * The job machinery with more than one step, proven on the test service's pipeline of three steps
 * (runner, Worker, runner) before real services rely on it: cancel between steps, a retry of the
 * failing step only, and outputs (small JSON, and artifacts by object key) passed step to step.
 */

let t: Tenant;
const STAGES = ["prepare", "work", "finish"];

async function threeSteps(middle: Record<string, unknown> = {}, first: Record<string, unknown> = {}): Promise<void> {
  await useTestPipeline("transcription", [
    { name: "first", executor: "runner", stages: STAGES, params: first },
    { name: "middle", executor: "worker", stages: STAGES, params: middle },
    { name: "last", executor: "runner", stages: STAGES },
  ]);
}

/** Plays the runner for one step: every stage started and completed, then the result. */
async function runStep(jobId: string, result: Record<string, unknown> = { ok: true }) {
  const task = await fakeRunner.leaseWhenReady(jobId);
  for (const stage of task.step.stages) {
    await fakeRunner.events(task, [{ stage, event: "started" }]);
    await fakeRunner.events(task, [{ stage, event: "completed" }]);
  }
  const res = await fakeRunner.complete(task, result);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return task;
}

let consoleKey: string;
async function progress(jobId: string): Promise<JobProgressView> {
  const res = await call<JobProgressView>("GET", `/v1/jobs/${jobId}/progress`, { key: consoleKey });
  if (res.status !== 200) throw new Error(`progress failed ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Waits until the Worker step reported all its stages: the last (runner) step is then in the lane, unleased. */
async function waitForMiddleStepDone(jobId: string): Promise<void> {
  await waitFor("the Worker step to finish", async () => (await progress(jobId)).progress.length === 2 * 2 * STAGES.length);
}

beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
  const session = await call<{ secret: string }>("POST", "/v1/console/sessions", {
    key: t.workspaceKey,
    body: { projectId: t.projectId, userHandle: "ana" },
  });
  consoleKey = session.body.data.secret;
  await patchSettings({ retry: { baseDelaySeconds: 0 } });
});

describe("a three-step pipeline (runner, Worker, runner)", () => {
  it("runs every step in order and completes with the last step's summary", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    await runStep(job.jobId);
    const last = await runStep(job.jobId);
    expect(last.step.name).toBe("last");
    const done = await waitForStatus(t, job.jobId, "completed");
    expect(done.resultSummary).toEqual({ test: { ok: true } });
    const stages = (await progress(job.jobId)).progress.map((p) => `${p.stage}:${p.event}`);
    expect(stages).toEqual([...STAGES, ...STAGES, ...STAGES].flatMap((s) => [`${s}:started`, `${s}:completed`]));
  });

  it("hands each step the outputs of the steps before it", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    const first = await runStep(job.jobId, { chapters: 3 });
    expect(first.outputs).toEqual({});
    const last = await fakeRunner.leaseWhenReady(job.jobId);
    expect(last.outputs["first"]).toEqual({ chapters: 3 });
    expect(last.outputs["middle"]).toMatchObject({ executor: "worker", sawOutputs: ["first"] });
    await fakeRunner.complete(last);
  });

  it("a cancel that arrives between two steps ends the job cancelled, and the next step never runs", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    await runStep(job.jobId);
    await waitForMiddleStepDone(job.jobId);
    expect((await getJob(t, job.jobId)).status).toBe("processing");
    const res = await call<Job>("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe("cancelled");
    expect(res.body.data.completedAt).not.toBeNull();
    expect(await fakeRunner.lease()).toBeNull();
  });

  it("a retryable failure in step 2 retries step 2, reusing step 1's output instead of running it again", async () => {
    await threeSteps({ failAttempts: 1 });
    const job = await submitTranscription(t);
    await runStep(job.jobId, { computedOnce: true });
    const last = await fakeRunner.leaseWhenReady(job.jobId);
    expect(last.step.name).toBe("last");
    expect(last.attempt).toBe(1);
    expect(last.outputs["first"]).toEqual({ computedOnce: true });
    await fakeRunner.complete(last);
    const done = await waitForStatus(t, job.jobId, "completed");
    expect(done.attemptCount).toBe(1);
    expect(done.lastError).toBeNull();
    const view = await progress(job.jobId);
    expect(view.attemptHistory).toHaveLength(1);
    expect(view.attemptHistory[0]).toMatchObject({
      attempt: 0,
      error: { code: "processing_failed", message: "test failure on attempt 0" },
    });
    // The failed attempt's timeline ends in step 2's failed stage; the retry's starts at step 2
    // (the test's last step reports no stages of its own).
    expect(view.attemptHistory[0]?.progress.at(-1)).toMatchObject({ stage: "prepare", event: "failed" });
    expect(view.progress.filter((p) => p.event === "started").map((p) => p.stage)).toEqual(STAGES);
  });

  it("a non-retryable failure in step 2 fails the job with that step's code", async () => {
    await threeSteps({ failAttempts: 5, failCode: "invalid_input", failRetryable: false });
    const job = await submitTranscription(t);
    await runStep(job.jobId);
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error).toEqual({ code: "invalid_input", message: "test failure on attempt 0" });
    expect(failed.attemptCount).toBe(0);
  });

  it("an artifact a step writes under the job's scratch prefix reaches the next step by key and is deleted when the job ends", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    const first = await fakeRunner.leaseWhenReady(job.jobId);
    expect(first.scratchPrefix).toBe(`_media-jobs/scratch/${job.jobId}/`);
    const key = `${first.scratchPrefix}frames.bin`;
    await testS3().putObject(t.bucket, key, new Uint8Array([1, 2, 3]));
    await fakeRunner.complete(first, { artifactKey: key, artifacts: [key] });
    const last = await fakeRunner.leaseWhenReady(job.jobId);
    expect(last.outputs["first"]).toEqual({ artifactKey: key });
    expect(await testS3().headObject(t.bucket, key)).not.toBeNull();
    await fakeRunner.complete(last);
    await waitForStatus(t, job.jobId, "completed");
    expect(await testS3().headObject(t.bucket, key)).toBeNull();
  });

  it("an artifact outside the job's scratch prefix (another job's, or climbing out with `..`) is refused with 422 and never deleted", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    const first = await fakeRunner.leaseWhenReady(job.jobId);
    for (const key of ["_media-jobs/scratch/job_someoneelse/frames.bin", `${first.scratchPrefix}../job_someoneelse/frames.bin`]) {
      const res = await fakeRunner.complete(first, { artifacts: [key] });
      expectError(res, 422, "protocolError");
      expect(res.body.error?.details).toEqual([{ path: "result.artifacts.0", issue: "outsideJobPrefix" }]);
    }
    await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
  });

  it("a step may not hand on more than 32 KiB of output through the job: the attempt fails and says to pass artifacts by key", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    await runStep(job.jobId, { blob: "x".repeat(40_000) });
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.message).toContain("pass large artifacts by object key");
  });
});

describe("stage names are checked", () => {
  it("a runner reporting a stage its step does not declare is refused with 422 protocolError, and nothing is recorded", async () => {
    await threeSteps();
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    const res = await fakeRunner.events(task, [
      { stage: "prepare", event: "started" },
      { stage: "upload_everything", event: "started" },
    ]);
    expectError(res, 422, "protocolError");
    expect(res.body.error?.message).toContain("upload_everything");
    expect((await progress(job.jobId)).progress).toEqual([]);
    await fakeRunner.fail(task, "processing_failed", false);
  });
});

describe("the runner's settings slice", () => {
  it("a leased transcription step receives the transcription settings and the operator's lease periods", async () => {
    await useTestPipeline("transcription", []);
    await patchSettings({ runner: { leaseSeconds: 45, heartbeatIntervalSeconds: 9 } });
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["transcription"]);
    expect(task.settings).toMatchObject({
      runner: { leaseSeconds: 45, heartbeatIntervalSeconds: 9 },
      transcription: { speechEngine: "local-pocketsphinx" },
    });
    expect(task.heartbeatIntervalSec).toBe(9);
    await runnerCall(`/tasks/${task.taskId}/fail`, {
      leaseToken: task.leaseToken,
      error: { code: "invalid_input", message: "done with it", retryable: false },
    });
  });
});
