import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { SHORT_SYNOPSIS_PREVIEW_CHARS } from "../../contracts/understanding";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, patchSettings, waitForStatus } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";
import { createJob, GENERATED, runRunnerStep, SHORT_SYNOPSIS, summaryDraft } from "./helpers/understanding";
import { env } from "cloudflare:workers";
import { moveLegacySummary, SUMMARY_BLOB_KIND } from "../../worker/services/summarization/store";
import { asLegacyRow, d1Row, expectBlobKey, ownerKeys, storedValue } from "./helpers/blobs";

/**
 * Summarization through the Worker: the `sum_` record created with the job (its `input.config` from
 * platform settings at create), the runner's draft saved on it, the spec's resultSummary with
 * `shortSynopsisPreview` (exactly the first 100 characters), and `GET /v1/summarizations/{id}`.
 */

let t: Tenant;
let other: Tenant;
let txt: string;
let txtJob: string;

beforeAll(async () => {
  t = await createTenant();
  other = await createTenant();
  ({ textSourceId: txt, jobId: txtJob } = await completedTranscript(t, 3));
});
afterEach(async () => {
  await cancelUnfinished(t);
});

type SummaryRecord = Record<string, unknown> & { status: string; config: Record<string, unknown> };
const record = (id: string, tenant = t) => call<SummaryRecord>("GET", `/v1/summarizations/${id}`, { key: tenant.projectKey });

describe("summarization", () => {
  it("creates a pending record holding the platform's synthesis configuration, and charges one credit", async () => {
    const before = (await usage(t))["summarization_credits"] ?? 0;
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    expect((await usage(t))["summarization_credits"]).toBe(before + 1);
    expect(job.input["config"]).toEqual({ textEngine: "local-extractive", textModel: null, visualChunks: true });
    const res = await record(String(job.input["summarizationId"]));
    expect(res.body.data).toMatchObject({
      status: "pending",
      jobId: job.jobId,
      textSourceId: txt,
      config: job.input["config"],
      shortSynopsis: null,
    });
  });

  it("input.config is fixed at create: a later settings change does not alter it", async () => {
    const job = await createJob(t, "summarization", { textSourceJobId: txtJob });
    await patchSettings({ understanding: { textEngine: "openai-compatible" } });
    try {
      const res = await record(String(job.input["summarizationId"]));
      expect(res.body.data.config["textEngine"]).toBe("local-extractive");
    } finally {
      await patchSettings({ understanding: { textEngine: "local-extractive" } });
    }
  });

  it("completes with summarizationId and the first 100 characters of the short synopsis", async () => {
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    const done = await runRunnerStep(t, job, "summarization", async () => summaryDraft());
    const id = String(job.input["summarizationId"]);
    expect(id).toMatch(/^sum_/);
    expect(SHORT_SYNOPSIS.length).toBeGreaterThan(SHORT_SYNOPSIS_PREVIEW_CHARS);
    expect(done.resultSummary).toEqual({ summarizationId: id, shortSynopsisPreview: SHORT_SYNOPSIS.slice(0, 100) });
    const res = await record(id);
    expect(res.body.data).toMatchObject({
      status: "completed",
      shortSynopsis: SHORT_SYNOPSIS,
      shortSynopsisPreview: SHORT_SYNOPSIS.slice(0, 100),
      seoDescriptions: summaryDraft().seoDescriptions,
      socialHooks: summaryDraft().socialHooks,
      keywords: summaryDraft().keywords,
      generated: GENERATED,
    });
  });

  it("a short synopsis under 100 characters is its own preview", async () => {
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    const done = await runRunnerStep(t, job, "summarization", async () => summaryDraft({ shortSynopsis: "Bread, kneaded." }));
    expect(done.resultSummary?.["shortSynopsisPreview"]).toBe("Bread, kneaded.");
  });

  it.each([
    ["an SEO description over 160 characters", { seoDescriptions: ["x".repeat(161), "b", "c"] }],
    ["a social hook over 100 characters", { socialHooks: ["a", "x".repeat(101), "c"] }],
    ["four keywords instead of five", { keywords: ["a", "b", "c", "d"] }],
    ["two SEO descriptions instead of three", { seoDescriptions: ["a", "b"] }],
  ])("a draft with %s fails the job and the record with it", async (_rule, bad) => {
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["summarization"]);
    await fakeRunner.complete(task, { ...summaryDraft(), ...bad });
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.code).toBe("processing_failed");
    expect((await record(String(job.input["summarizationId"]))).body.data.status).toBe("failed");
  });

  it("a job that fails after queueing marks the record failed and keeps the credit", async () => {
    const before = (await usage(t))["summarization_credits"] ?? 0;
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["summarization"]);
    await fakeRunner.fail(task, "no_segments", false, "no text");
    await waitForStatus(t, job.jobId, "failed");
    expect((await record(String(job.input["summarizationId"]))).body.data.status).toBe("failed");
    expect((await usage(t))["summarization_credits"]).toBe(before + 1);
  });

  it("another project's summarization is 404", async () => {
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    expectError(await record(String(job.input["summarizationId"]), other), 404, "notFound");
    expectError(await record("sum_doesnotexist"), 404, "notFound");
  });
});

describe("summarization storage", () => {
  /** A completed summarization; answers its id. */
  async function completedSummary(): Promise<string> {
    const job = await createJob(t, "summarization", { textSourceJobId: txt });
    await runRunnerStep(t, job, "summarization", async () => summaryDraft());
    return String(job.input["summarizationId"]);
  }

  it("keeps the runner's draft as an object in R2 that the record's row points at", async () => {
    const id = await completedSummary();
    const row = await d1Row("summarizations", id);
    expect(row).toMatchObject({ status: "completed", result: null });
    expectBlobKey(row["result_key"], t.projectId, SUMMARY_BLOB_KIND, id);
    expect(await ownerKeys(t.projectId, SUMMARY_BLOB_KIND, id)).toEqual([row["result_key"]]);
    expect(await storedValue(String(row["result_key"]))).toMatchObject({
      shortSynopsis: SHORT_SYNOPSIS,
      keywords: summaryDraft().keywords,
    });
  });

  it("reads a record the previous version kept in D1, and moves it into R2 once, answering the same", async () => {
    const id = await completedSummary();
    const before = (await record(id)).body.data;
    await asLegacyRow("summarizations", id, "result", "result_key");
    expect((await record(id)).body.data).toEqual(before);
    expect(await moveLegacySummary(env, id)).toBe(true);
    expect(await moveLegacySummary(env, id)).toBe(false);
    expect(await d1Row("summarizations", id)).toMatchObject({ result: null });
    expect(await ownerKeys(t.projectId, SUMMARY_BLOB_KIND, id)).toHaveLength(1);
    expect((await record(id)).body.data).toEqual(before);
  });
});
