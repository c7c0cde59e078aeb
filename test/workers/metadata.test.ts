import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { consoleSession, createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";
import { createJob, GENERATED, metadataDraft, runRunnerStep } from "./helpers/understanding";
import { env } from "cloudflare:workers";
import { getDb } from "../../worker/db/client";
import { METADATA_BLOB_KIND, moveLegacyMetadata } from "../../worker/services/metadata/store";
import { asLegacyRow, d1Row, expectBlobKey, ownerKeys, storedValue } from "./helpers/blobs";

/**
 * Metadata through the Worker: one credit at create, the runner reading the transcript through the
 * platform, the draft saved on the transcript by the in-Worker `save_metadata` step, the spec's
 * resultSummary and `GET /v1/transcriptions/{id}/metadata`.
 */

let t: Tenant;
let other: Tenant;
let txt: string;

beforeAll(async () => {
  t = await createTenant();
  other = await createTenant();
  txt = (await completedTranscript(t, ["Welcome to the kitchen.", "Today we bake bread.", "Knead the dough well."])).textSourceId;
});
afterEach(async () => {
  await cancelUnfinished(t);
});

describe("metadata", () => {
  it("costs one metadata credit at create", async () => {
    const before = (await usage(t))["metadata_credits"] ?? 0;
    await createJob(t, "metadata", { textSourceId: txt });
    expect((await usage(t))["metadata_credits"]).toBe(before + 1);
  });

  it("the runner reads the transcript's current segments, without word timings", async () => {
    const job = await createJob(t, "metadata", { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["metadata"]);
    const res = await fakeRunner.transcript(task, txt);
    expect(res.status).toBe(200);
    expect(res.body.data.segments.map((s) => s.text)).toEqual(["Welcome to the kitchen.", "Today we bake bread.", "Knead the dough well."]);
    expect(res.body.data.segments.every((s) => !("words" in s))).toBe(true);
    expect(res.body.data).toMatchObject({ textSourceId: txt, language: "en", revision: 1, durationSec: 6 });
  });

  it("a runner may read only the transcripts its job names", async () => {
    const another = (await completedTranscript(t, 2)).textSourceId;
    const job = await createJob(t, "metadata", { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["metadata"]);
    expectError(await fakeRunner.transcript(task, another), 422, "protocolError");
  });

  it("completes with the spec's resultSummary, and the record is on the transcript", async () => {
    const job = await createJob(t, "metadata", { textSourceId: txt });
    const done = await runRunnerStep(t, job, "metadata", async () => metadataDraft());
    expect(done.status).toBe("completed");
    const metadataId = String(job.input["metadataId"]);
    expect(metadataId).toMatch(/^mdt_/);
    expect(done.resultSummary).toEqual({
      textSourceId: txt,
      metadataId,
      title: "Segment number zero and friends",
      chapterCount: 2,
      generated: GENERATED,
    });
    const res = await call<Record<string, unknown>>("GET", `/v1/transcriptions/${txt}/metadata`, { key: t.projectKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      transcriptionId: txt,
      metadataId,
      jobId: job.jobId,
      title: "Segment number zero and friends",
      chapters: metadataDraft().chapters,
      categories: metadataDraft().categories,
      keywords: ["segment", "number"],
      generatedBy: GENERATED,
      transcriptRevision: 0,
    });
  });

  it("reports save_metadata as an in-Worker stage after the runner's stages", async () => {
    const job = await createJob(t, "metadata", { textSourceId: txt });
    await runRunnerStep(t, job, "metadata", async (task) => {
      await fakeRunner.events(task, [
        { stage: "load_transcription", event: "started" },
        { stage: "load_transcription", event: "completed" },
        { stage: "generate_metadata", event: "started" },
        { stage: "generate_metadata", event: "completed" },
      ]);
      return metadataDraft();
    });
    const session = await consoleSession(t);
    const progress = await call<{ progress: Array<{ stage: string; event: string }> }>("GET", `/v1/jobs/${job.jobId}/progress`, {
      key: session.secret,
    });
    expect(progress.body.data.progress.map((p) => `${p.stage}:${p.event}`)).toEqual([
      "load_transcription:started",
      "load_transcription:completed",
      "generate_metadata:started",
      "generate_metadata:completed",
      "save_metadata:started",
      "save_metadata:completed",
    ]);
  });

  it("a new run replaces the record with a new metadata id", async () => {
    const first = await createJob(t, "metadata", { textSourceId: txt });
    await runRunnerStep(t, first, "metadata", async () => metadataDraft({ title: "First title" }));
    const second = await createJob(t, "metadata", { textSourceId: txt });
    await runRunnerStep(t, second, "metadata", async () => metadataDraft({ title: "Second title" }));
    const res = await call<Record<string, unknown>>("GET", `/v1/transcriptions/${txt}/metadata`, { key: t.projectKey });
    expect(res.body.data).toMatchObject({ title: "Second title", metadataId: second.input["metadataId"] });
  });

  it("a draft that breaks the limits fails the job and saves nothing", async () => {
    const fresh = (await completedTranscript(t, 2)).textSourceId;
    const job = await createJob(t, "metadata", { textSourceId: fresh });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["metadata"]);
    await fakeRunner.complete(task, { ...metadataDraft(), title: "x".repeat(71) });
    const failed: Job = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.code).toBe("processing_failed");
    expect(failed.error?.message).toContain("title");
    expectError(await call("GET", `/v1/transcriptions/${fresh}/metadata`, { key: t.projectKey }), 404, "notFound");
  });

  it.each([
    ["a first chapter after 0", [{ start: 2, segmentId: 1, title: "late" }]],
    [
      "chapters out of order",
      [
        { start: 0, segmentId: 0, title: "a" },
        { start: 4, segmentId: 2, title: "c" },
        { start: 2, segmentId: 1, title: "b" },
      ],
    ],
    [
      "a chapter past the end",
      [
        { start: 0, segmentId: 0, title: "a" },
        { start: 6, segmentId: 3, title: "after the end" },
      ],
    ],
  ])("a draft with %s fails the job", async (_rule, chapters) => {
    const job = await createJob(t, "metadata", { textSourceId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["metadata"]);
    await fakeRunner.complete(task, { ...metadataDraft(), chapters });
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.message).toContain("chapters");
  });

  it("metadata of a transcript with none yet is 404, and another project's transcript is 404", async () => {
    const fresh = (await completedTranscript(t, 2)).textSourceId;
    const none = await call("GET", `/v1/transcriptions/${fresh}/metadata`, { key: t.projectKey });
    expectError(none, 404, "notFound");
    expect(none.body.error?.message).toContain("no metadata");
    expectError(await call("GET", `/v1/transcriptions/${txt}/metadata`, { key: other.projectKey }), 404, "notFound");
  });

  it("a job whose runner step fails leaves the previous metadata in place", async () => {
    const job = await createJob(t, "metadata", { textSourceId: txt });
    const before = (await call<Record<string, unknown>>("GET", `/v1/transcriptions/${txt}/metadata`, { key: t.projectKey })).body.data;
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["metadata"]);
    await fakeRunner.fail(task, "no_segments", false, "transcription has no segments with text");
    expect((await waitForStatus(t, job.jobId, "failed")).error?.code).toBe("no_segments");
    expect((await call<Record<string, unknown>>("GET", `/v1/transcriptions/${txt}/metadata`, { key: t.projectKey })).body.data).toEqual(
      before,
    );
  });
});

describe("metadata storage", () => {
  const metadataOf = async (id: string) =>
    (await call<Record<string, unknown>>("GET", `/v1/transcriptions/${id}/metadata`, { key: t.projectKey })).body.data;

  it("keeps the record as an object in R2 that the transcript points at; a new run's record replaces the object", async () => {
    const fresh = (await completedTranscript(t, 2)).textSourceId;
    await runRunnerStep(t, await createJob(t, "metadata", { textSourceId: fresh }), "metadata", async () =>
      metadataDraft({ title: "First" }),
    );
    const firstKey = (await d1Row("transcripts", fresh))["metadata_key"];
    await runRunnerStep(t, await createJob(t, "metadata", { textSourceId: fresh }), "metadata", async () =>
      metadataDraft({ title: "Second" }),
    );
    const row = await d1Row("transcripts", fresh);
    expect(row["metadata"]).toBeNull();
    expectBlobKey(row["metadata_key"], t.projectId, METADATA_BLOB_KIND, fresh);
    expect(row["metadata_key"]).not.toBe(firstKey);
    expect(await ownerKeys(t.projectId, METADATA_BLOB_KIND, fresh)).toEqual([row["metadata_key"]]);
    // The route adds the transcript's id and how the record stands against the transcript now (currentRevision, stale).
    const { transcriptionId: _, currentRevision: _now, stale: _stale, ...record } = await metadataOf(fresh);
    expect(await storedValue(String(row["metadata_key"]))).toEqual(record);
  });

  it("reads a record the previous version kept on the transcript in D1, and moves it into R2 once, answering the same", async () => {
    const fresh = (await completedTranscript(t, 2)).textSourceId;
    await runRunnerStep(t, await createJob(t, "metadata", { textSourceId: fresh }), "metadata", async () => metadataDraft());
    const before = await metadataOf(fresh);
    const transcript = (await call<Record<string, unknown>>("GET", `/v1/transcriptions/${fresh}`, { key: t.projectKey })).body.data;
    await asLegacyRow("transcripts", fresh, "metadata", "metadata_key");
    expect(await metadataOf(fresh)).toEqual(before);
    expect(await moveLegacyMetadata(env, getDb(env.DB), fresh)).toBe(true);
    expect(await moveLegacyMetadata(env, getDb(env.DB), fresh)).toBe(false);
    expect((await d1Row("transcripts", fresh))["metadata"]).toBeNull();
    expect(await ownerKeys(t.projectId, METADATA_BLOB_KIND, fresh)).toHaveLength(1);
    expect(await metadataOf(fresh)).toEqual(before);
    expect((await call<Record<string, unknown>>("GET", `/v1/transcriptions/${fresh}`, { key: t.projectKey })).body.data).toEqual(
      transcript,
    );
  });
});
