import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError } from "./helpers/api";
import { clipResult } from "./helpers/results";
import { cancelUnfinished, fakeRunner, getJob, waitForStatus } from "./helpers/jobs";
import { testS3 } from "./helpers/s3";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";
import { recordRedaction } from "./helpers/redaction";
import { env } from "cloudflare:workers";
import { CLIPS_BLOB_KIND, moveLegacyClipResult } from "../../worker/services/clip-generation/store";
import { asLegacyRow, d1Row, expectBlobKey, ownerKeys, storedValue } from "./helpers/blobs";

/**
 * Clip generation through the Worker: create (options applied, credits, the record), the in-Worker
 * step that hands the transcript to the runner as a scratch object, the runner step's result
 * becoming the `clp_` record and the job's resultSummary, and the record's route.
 */

const CLIP_HANDLER = ["clip_generation"];
let t: Tenant;
let free: Tenant;
let txt: string;
let freeTxt: string;

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  free = await createTenant({ plan: "free" });
  txt = (await completedTranscript(t, 4)).textSourceId;
  freeTxt = (await completedTranscript(free, 4)).textSourceId;
});
// Storage is per file: a job left queued would be the next test's lease.
afterEach(async () => {
  await cancelUnfinished(t);
  await cancelUnfinished(free);
});

async function createClips(tenant: Tenant, input: Record<string, unknown>): Promise<Job> {
  const res = await call<Job>("POST", "/v1/jobs", { key: tenant.projectKey, body: { serviceType: "clip_generation", input } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

describe("clip generation create", () => {
  it("resolves the source from the transcription and the default prefix {defaultOutputPrefix}/{textSourceId}/clips/", async () => {
    const job = await createClips(t, { textSourceId: txt });
    expect(job.input).toMatchObject({ connectionId: t.connectionId, bucket: t.bucket, sourceType: "s3_direct" });
    expect(job.input["resolvedOutputPrefix"]).toBe(`svc-media-results/${txt}/clips/`);
    expect(String(job.input["clipGenerationId"])).toMatch(/^clp_/);
  });

  it("caps maxClips at the plan's cap, charges the capped count and records the cap applied", async () => {
    const before = (await usage(free))["clip_credits"] ?? 0;
    const job = await createClips(free, { textSourceId: freeTxt, options: { maxClips: 50 } });
    expect(job.input["options"]).toMatchObject({ maxClips: 10, maxClipsRequested: 50, maxClipsCap: 10 });
    expect((await usage(free))["clip_credits"]).toBe(before + 10);
  });

  it("stores the platform's analysis toggles on the job, read-only", async () => {
    const job = await createClips(t, { textSourceId: txt });
    expect(job.input["analysis"]).toEqual({ vision: true, category: true });
  });

  it("creates a pending clip generation record readable at once", async () => {
    const job = await createClips(t, { textSourceId: txt, options: { layout: "square_1_1" } });
    const res = await call<Record<string, unknown>>("GET", `/v1/clip-generations/${String(job.input["clipGenerationId"])}`, {
      key: t.projectKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: "pending",
      jobId: job.jobId,
      textSourceId: txt,
      clips: [],
      options: { layout: "square_1_1" },
    });
  });

  it("refuses a missing source object with 422 sourceNotFound and charges nothing", async () => {
    const before = (await usage(t))["clip_credits"] ?? 0;
    const res = await call("POST", "/v1/jobs", {
      key: t.projectKey,
      body: {
        serviceType: "clip_generation",
        input: { textSourceId: txt, connectionId: t.connectionId, bucket: t.bucket, sourceKey: "nope/missing.mp4" },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "sourceNotFound" }]);
    expect((await usage(t))["clip_credits"] ?? 0).toBe(before);
  });
});

describe("clip generation pipeline", () => {
  it("hands the transcript to the runner as a scratch object named in the step outputs", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    const key = task.outputs["fetch_transcription"]?.["transcriptKey"];
    expect(key).toBe(`_media-jobs/scratch/${job.jobId}/transcript.json`);
    const doc = (await (await testS3().getObject(t.bucket, String(key))).json()) as { segments: unknown[]; textSourceId: string };
    expect(doc.textSourceId).toBe(txt);
    expect(doc.segments).toHaveLength(4);
    await fakeRunner.fail(task, "processing_failed", false);
  });

  it("hands over where the transcript's redacted words were, in time order, so the runner silences them in every clip", async () => {
    const redacted = (await completedTranscript(t, 4)).textSourceId;
    await recordRedaction(redacted, [
      { type: "PHONE", start: 5.2, end: 6.1, segmentId: 2 },
      { type: "PERSON", start: 0.4, end: 0.9 },
    ]);
    const job = await createClips(t, { textSourceId: redacted });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    const key = String(task.outputs["fetch_transcription"]?.["transcriptKey"]);
    const doc = (await (await testS3().getObject(t.bucket, key)).json()) as { redactedSpans: unknown };
    expect(doc.redactedSpans).toEqual([
      { type: "PERSON", start: 0.4, end: 0.9 },
      { type: "PHONE", start: 5.2, end: 6.1 },
    ]);
    await fakeRunner.fail(task, "processing_failed", false);
  });

  it("hands over no redacted spans for a transcript that was not redacted", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    const key = String(task.outputs["fetch_transcription"]?.["transcriptKey"]);
    expect(((await (await testS3().getObject(t.bucket, key)).json()) as { redactedSpans: unknown }).redactedSpans).toEqual([]);
    await fakeRunner.fail(task, "processing_failed", false);
  });

  it("the record says how the clips' audio replaced the redacted words and over how many spans", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    const result = { ...clipResult(job, 2), redactedAudio: { mode: "silence" as const, spans: 3 } };
    expect((await fakeRunner.complete(task, result as unknown as Record<string, unknown>)).status).toBe(200);
    await waitForStatus(t, job.jobId, "completed");
    const rec = await call<Record<string, unknown>>("GET", `/v1/clip-generations/${String(job.input["clipGenerationId"])}`, {
      key: t.projectKey,
    });
    expect(rec.body.data["redactedAudio"]).toEqual({ mode: "silence", spans: 3 });
  });

  it("the record of clips made from a transcript that was not redacted says so with a null redactedAudio", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    expect((await fakeRunner.complete(task, clipResult(job, 1) as unknown as Record<string, unknown>)).status).toBe(200);
    await waitForStatus(t, job.jobId, "completed");
    const rec = await call<Record<string, unknown>>("GET", `/v1/clip-generations/${String(job.input["clipGenerationId"])}`, {
      key: t.projectKey,
    });
    expect(rec.body.data["redactedAudio"]).toBeNull();
  });

  it("completes the record and the job's resultSummary from the runner's result, and removes the scratch transcript", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    const res = await fakeRunner.complete(task, clipResult(job, 2) as unknown as Record<string, unknown>);
    expect(res.status).toBe(200);
    const done = await waitForStatus(t, job.jobId, "completed");
    const id = String(job.input["clipGenerationId"]);
    expect(done.resultSummary).toEqual({
      clipGenerationId: id,
      clipCount: 2,
      sourceDurationSec: 8,
      transcriptPreview: "segment number 0 segment number 1",
    });
    const rec = await call<Record<string, unknown>>("GET", `/v1/clip-generations/${id}`, { key: t.projectKey });
    expect(rec.body.data).toMatchObject({
      status: "completed",
      layout: "vertical_9_16",
      category: "interview",
      categoryConfidence: 0.7,
      clipCount: 2,
    });
    expect(await testS3().headObject(t.bucket, `_media-jobs/scratch/${job.jobId}/transcript.json`)).toBeNull();
  });

  it("marks the record failed when the job fails", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    await fakeRunner.fail(task, "unsupported_media", false, "no video");
    await waitForStatus(t, job.jobId, "failed");
    const rec = await call<Record<string, unknown>>("GET", `/v1/clip-generations/${String(job.input["clipGenerationId"])}`, {
      key: t.projectKey,
    });
    expect(rec.body.data).toMatchObject({ status: "failed" });
    expect((await getJob(t, job.jobId)).error?.code).toBe("unsupported_media");
  });

  it("refuses a result that does not match the contract, failing the job without a record", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    await fakeRunner.complete(task, { clips: "not a list" });
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.code).toBe("processing_failed");
  });
});

describe("the runner's clip result is checked against the job", () => {
  /** Leases the job's clip step and completes it with the first clip's video key replaced. */
  async function completeWithVideoKey(videoKey: (job: Job) => string) {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    const result = clipResult(job, 1);
    result.clips[0]!.videoKey = videoKey(job);
    return { job, task, res: await fakeRunner.complete(task, result as unknown as Record<string, unknown>) };
  }

  it("a clip key in another clip generation's folder is refused with 422, and the runner then fails the task", async () => {
    const { job, task, res } = await completeWithVideoKey((j) => `${String(j.input["resolvedOutputPrefix"])}clp_someoneelse/clip-01.mp4`);
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.clips.0.videoKey", issue: "outsideJobPrefix" }]);
    expect((await fakeRunner.fail(task, "processing_failed", false, "result refused")).status).toBe(200);
    await waitForStatus(t, job.jobId, "failed");
    const rec = await call<{ status: string; clips: unknown[] }>("GET", `/v1/clip-generations/${String(job.input["clipGenerationId"])}`, {
      key: t.projectKey,
    });
    expect(rec.body.data).toMatchObject({ status: "failed", clips: [] });
  });

  it("a clip key that climbs out of the job's folder with `..` is refused with 422", async () => {
    const { res } = await completeWithVideoKey(
      (j) => `${String(j.input["resolvedOutputPrefix"])}${String(j.input["clipGenerationId"])}/../../../other-tenant/secret.mp4`,
    );
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.clips.0.videoKey", issue: "outsideJobPrefix" }]);
  });
});

describe("GET /v1/clip-generations/{id}", () => {
  it("is 404 for another project's record", async () => {
    const job = await createClips(t, { textSourceId: txt });
    const res = await call("GET", `/v1/clip-generations/${String(job.input["clipGenerationId"])}`, { key: free.projectKey });
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe("notFound");
  });
});

describe("GET /v1/jobs/policy?serviceType=clip_generation", () => {
  it("carries the spec's fields for free, pro and enterprise", async () => {
    const res = await call<{ plans: Record<string, Record<string, unknown>> }>("GET", "/v1/jobs/policy?serviceType=clip_generation");
    for (const plan of ["free", "pro", "enterprise"])
      expect(Object.keys(res.body.data.plans[plan]!)).toEqual(
        expect.arrayContaining([
          "maxClipsDefault",
          "maxClipsCap",
          "supportedLayouts",
          "supportedFillStyles",
          "supportedCategories",
          "allowAutoLayout",
          "allowCategoryOverride",
        ]),
      );
    expect(res.body.data.plans["free"]!["supportedCategories"]).toEqual(
      expect.arrayContaining(["interview", "podcast", "gaming", "education", "vlog", "presentation"]),
    );
  });
});

describe("clip generation storage", () => {
  /** A completed clip generation of `count` clips; answers its id and its record as the API shows it. */
  async function completedClips(count: number): Promise<{ id: string; record: Record<string, unknown> }> {
    const job = await createClips(t, { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, CLIP_HANDLER);
    expect((await fakeRunner.complete(task, clipResult(job, count) as unknown as Record<string, unknown>)).status).toBe(200);
    await waitForStatus(t, job.jobId, "completed");
    const id = String(job.input["clipGenerationId"]);
    return { id, record: (await call<Record<string, unknown>>("GET", `/v1/clip-generations/${id}`, { key: t.projectKey })).body.data };
  }

  it("keeps the runner's result as an object in R2 that the record's row points at, with the clip count beside it", async () => {
    const { id, record } = await completedClips(2);
    const row = await d1Row("clip_generations", id);
    expect(row).toMatchObject({ result: null, clip_count: 2 });
    expectBlobKey(row["result_key"], t.projectId, CLIPS_BLOB_KIND, id);
    expect(await ownerKeys(t.projectId, CLIPS_BLOB_KIND, id)).toEqual([row["result_key"]]);
    expect((await storedValue<{ clips: unknown[] }>(String(row["result_key"])))?.clips).toEqual(record["clips"]);
  });

  it("reads a record the previous version kept in D1, and moves it into R2 once, answering the same", async () => {
    const { id, record } = await completedClips(2);
    await asLegacyRow("clip_generations", id, "result", "result_key", { clip_count: 0 });
    const read = async () => (await call<Record<string, unknown>>("GET", `/v1/clip-generations/${id}`, { key: t.projectKey })).body.data;
    expect(await read()).toEqual(record);
    expect(await moveLegacyClipResult(env, id)).toBe(true);
    expect(await moveLegacyClipResult(env, id)).toBe(false);
    expect(await d1Row("clip_generations", id)).toMatchObject({ result: null, clip_count: 2 });
    expect(await ownerKeys(t.projectId, CLIPS_BLOB_KIND, id)).toHaveLength(1);
    expect(await read()).toEqual(record);
  });
});
