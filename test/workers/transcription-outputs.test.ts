import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError } from "./helpers/api";
import { fakeRunner, getJob, submitTranscription, waitForStatus } from "./helpers/jobs";
import { testS3 } from "./helpers/s3";
import { createTenant, type Tenant } from "./helpers/tenant";
import { TRANSCRIPTION_HANDLER, transcriptionResult } from "./helpers/transcripts";

/**
 * A transcription that does not complete leaves its four output keys as they were at create (the
 * empty objects of the writability probes), never a half-written set, whatever stopped it.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});

type Keys = Record<"fullText" | "segments" | "srt" | "vtt", string>;
const keysOf = (job: Job) => job.input["resolvedOutputKeys"] as Keys;

/** Plays a runner that got through some of the upload stages: those keys now hold full files. */
async function uploadSome(job: Job, which: Array<keyof Keys>) {
  const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
  for (const k of which) await testS3().putObject(t.bucket, keysOf(job)[k], new TextEncoder().encode(`the ${k} file`), "text/plain");
  return task;
}

async function sizes(job: Job): Promise<number[]> {
  return Promise.all(Object.values(keysOf(job)).map(async (key) => (await testS3().headObject(t.bucket, key))?.size ?? -1));
}

describe("transcription outputs of a job that does not complete", () => {
  it("a cancel acknowledged between upload stages leaves all four keys empty", async () => {
    const job = await submitTranscription(t);
    const task = await uploadSome(job, ["fullText", "segments", "srt"]);
    await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    await fakeRunner.cancelled(task);
    await waitForStatus(t, job.jobId, "cancelled");
    expect(await sizes(job)).toEqual([0, 0, 0, 0]);
  });

  it("a failed upload stage (a non-retryable failure) leaves all four keys empty", async () => {
    const job = await submitTranscription(t);
    const task = await uploadSome(job, ["fullText", "segments"]);
    await fakeRunner.fail(task, "source_access_denied", false, "put refused: AccessDenied");
    await waitForStatus(t, job.jobId, "failed");
    expect(await sizes(job)).toEqual([0, 0, 0, 0]);
  });

  it("a result the Worker refuses (transcript_too_large) leaves all four keys empty, though the runner wrote them", async () => {
    const job = await submitTranscription(t);
    const task = await uploadSome(job, ["fullText", "segments", "srt", "vtt"]);
    const huge = transcriptionResult(job, 1);
    huge.segments = [{ id: 0, start: 0, end: 1, text: "x".repeat(9 * 1024 * 1024) }];
    await fakeRunner.complete(task, huge as unknown as Record<string, unknown>);
    expect((await waitForStatus(t, job.jobId, "failed")).error?.code).toBe("transcript_too_large");
    expect(await sizes(job)).toEqual([0, 0, 0, 0]);
  });

  it("a completed job keeps what the runner uploaded", async () => {
    const job = await submitTranscription(t);
    const task = await uploadSome(job, ["fullText", "segments", "srt", "vtt"]);
    await fakeRunner.complete(task, transcriptionResult(job, 2) as unknown as Record<string, unknown>);
    await waitForStatus(t, job.jobId, "completed");
    expect((await sizes(job)).every((n) => n > 0)).toBe(true);
    expect((await getJob(t, job.jobId)).status).toBe("completed");
  });
});

describe("the runner's transcription result is checked against the job", () => {
  it("output keys other than the job's own are refused with 422, and no transcript is saved", async () => {
    const job = await submitTranscription(t);
    const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
    const result = transcriptionResult(job, 1);
    result.outputKeys = { ...result.outputKeys, srt: "svc-media-results/txt_someoneelse/transcripts/subtitles.srt" };
    const res = await fakeRunner.complete(task, result as unknown as Record<string, unknown>);
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.outputKeys.srt", issue: "notJobOutput" }]);
    expect((await getJob(t, job.jobId)).status).toBe("processing");
  });
});
