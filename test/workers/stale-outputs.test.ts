import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { collectionName } from "../../contracts/catalog";
import { newId } from "../../contracts/ids";
import type { Job } from "../../contracts/job";
import type { TranscriptDocument } from "../../contracts/runner-protocol";
import type { TranslationSource } from "../../contracts/services/translation";
import { buildApp } from "../../worker/app";
import { parseQueryCount, REQUEST_HEADER } from "../../worker/db/query-count-header";
import { getDb } from "../../worker/db/client";
import { dubbings, transcripts, translations } from "../../worker/db/schema";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, patchSettings, waitForStatus } from "./helpers/jobs";
import { DEFAULT_SETTINGS, type QuotaMeter } from "../../contracts/settings";
import { dubbingSave } from "./helpers/results";
import { testS3 } from "./helpers/s3";
import { createTenant, projectKey, type Tenant } from "./helpers/tenant";
import { completedTranscript, diarizedTranscript, translationSaveBody } from "./helpers/transcripts";
import { createJob, metadataDraft, runRunnerStep, summaryDraft } from "./helpers/understanding";
import { eq } from "drizzle-orm";

/**
 * Outputs that know they are stale (docs/api.md, "Stale outputs and regenerate"): every record made
 * from a transcript notes the revision it was made from, reads `stale` once an edit moved the
 * transcript past it, and `POST /v1/transcriptions/{id}/regenerate` creates the jobs that bring the
 * outputs asked for up to date. The test plays the runner; the transcript files job runs in the Worker.
 */

let t: Tenant;
let other: Tenant;
const TEXTS = ["Welcome to the show.", "Thanks for having me.", "Let us begin."];

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  other = await createTenant({ plan: "enterprise" });
});
afterEach(async () => {
  await cancelUnfinished(t);
});

/** A fresh completed transcript of `t` (revision 1), so each rule starts from its own. */
const freshTranscript = async () => (await completedTranscript(t, TEXTS)).textSourceId;

/** Edits the first segment's text, moving the transcript one revision on; answers the new revision. */
async function editFirstSegment(txt: string, text = "Welcome back to the show."): Promise<number> {
  const now = await call<{ revision: number }>("GET", `/v1/transcriptions/${txt}?layers=segments`, { key: t.projectKey });
  const res = await call<{ revision: number }>("PATCH", `/v1/transcriptions/${txt}/segments`, {
    key: t.projectKey,
    body: { revision: now.body.data.revision, segments: [{ id: 0, text }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data.revision;
}

const get = async (path: string) => {
  const res = await call<Record<string, unknown>>("GET", path, { key: t.projectKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
};

const freshness = (made: number | null, current: number | null, stale: boolean | null) => ({
  transcriptRevision: made,
  currentRevision: current,
  stale,
});

/** A translation of `txt` into `language`, the test playing the runner: saved from the revision the runner read. */
async function completedTranslation(txt: string, language = "es"): Promise<string> {
  const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: language });
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
  const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
  const saved = await fakeRunner.call(task, "translation.save", translationSaveBody(source, job));
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  const translationId = String(job.input["translationId"]);
  await fakeRunner.complete(task, {
    translationId,
    textSourceId: txt,
    sourceLanguage: "en",
    targetLanguage: language,
    languageKey: language,
    sourceLayer: "current",
    segmentCount: TEXTS.length,
    durationSec: 6,
    translationBackend: "apertium",
    model: "apertium:eng-spa",
  });
  await waitForStatus(t, job.jobId, "completed");
  return translationId;
}

/** A completed dub of `translationId`, the test playing the runner. */
async function completedDub(txt: string, translationId: string): Promise<string> {
  const res = await call<Job>("POST", "/v1/jobs", {
    key: t.projectKey,
    body: { serviceType: "dubbing", input: { transcriptionId: txt, targetLanguage: "es", translationId } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const job = res.body.data;
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
  const voice = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", {
    label: "SPEAKER_00",
    created: {
      spec: { kind: "profile", engine: "espeak-ng", language: "es", baseVoice: "es+f3" },
      model: "espeak-ng 1.51",
      referenceKey: null,
      sampleSpeechSec: 4.2,
    },
  });
  expect((await fakeRunner.call(task, "dubbing.save", dubbingSave(job, voice.body.data.voiceId))).status).toBe(200);
  return String(job.input["dubbingId"]);
}

/** A metadata or summarization job run to completion, its draft made from the revision the runner read. */
async function understood(txt: string, serviceType: "metadata" | "summarization"): Promise<Job> {
  const input = serviceType === "metadata" ? { textSourceId: txt } : { textSourceJobId: txt };
  const job = await createJob(t, serviceType, input);
  return runRunnerStep(t, job, serviceType, async (task) => {
    const doc = (await fakeRunner.transcript(task, txt)).body.data as TranscriptDocument;
    const draft =
      serviceType === "metadata" ? metadataDraft({ transcriptRevision: doc.revision }) : summaryDraft({ transcriptRevision: doc.revision });
    return draft as unknown as Record<string, unknown>;
  });
}

const regenerate = (txt: string, body: unknown, key = t.projectKey) =>
  call<{
    transcriptionId: string;
    revision: number;
    jobs: Array<{ output: string; languageKey?: string; dubbingId?: string; job: Job }>;
    refused: unknown[];
  }>("POST", `/v1/transcriptions/${txt}/regenerate`, { key, body });

describe("a record notes the transcript revision it was made from", () => {
  it("a translation made at the transcript's revision reads not stale", async () => {
    const txt = await freshTranscript();
    const id = await completedTranslation(txt);
    expect(await get(`/v1/translations/${id}`)).toMatchObject(freshness(1, 1, false));
  });

  it("after a segment edit a translation reads stale, with the revision it was made from and the current one", async () => {
    const txt = await freshTranscript();
    const id = await completedTranslation(txt);
    await editFirstSegment(txt);
    expect(await get(`/v1/translations/${id}`)).toMatchObject(freshness(1, 2, true));
    expect(await get(`/v1/transcriptions/${txt}/translations/es`)).toMatchObject(freshness(1, 2, true));
    expect(await get(`/v1/transcriptions/${txt}/translations`)).toMatchObject({
      translations: [{ languageKey: "es", ...freshness(1, 2, true) }],
    });
  });

  it("a speaker rename moves the revision too, so the records made before it read stale", async () => {
    const txt = (await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01"])).textSourceId;
    const id = await completedTranslation(txt);
    const res = await call("PATCH", `/v1/transcriptions/${txt}/speakers`, {
      key: t.projectKey,
      body: { revision: 1, names: { SPEAKER_00: "Ada" } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await get(`/v1/translations/${id}`)).toMatchObject(freshness(1, 2, true));
  });

  it("metadata notes the revision its runner read, and reads stale after an edit", async () => {
    const txt = await freshTranscript();
    await understood(txt, "metadata");
    expect(await get(`/v1/transcriptions/${txt}/metadata`)).toMatchObject(freshness(1, 1, false));
    await editFirstSegment(txt);
    expect(await get(`/v1/transcriptions/${txt}/metadata`)).toMatchObject(freshness(1, 2, true));
  });

  it("a summary notes the revision its runner read, and reads stale after an edit", async () => {
    const txt = await freshTranscript();
    const job = await understood(txt, "summarization");
    const path = `/v1/summarizations/${String(job.input["summarizationId"])}`;
    expect(await get(path)).toMatchObject(freshness(1, 1, false));
    await editFirstSegment(txt);
    expect(await get(path)).toMatchObject(freshness(1, 2, true));
  });

  it("clip captions note the revision handed over to the runner, and read stale after an edit", async () => {
    const txt = await freshTranscript();
    const job = await createJob(t, "clip_generation", { textSourceId: txt });
    // The lease comes after the Worker's hand-over step: the revision is noted by then.
    await fakeRunner.leaseWhenReady(job.jobId, ["clip_generation"]);
    const path = `/v1/clip-generations/${String(job.input["clipGenerationId"])}`;
    expect(await get(path)).toMatchObject(freshness(1, 1, false));
    await editFirstSegment(txt);
    expect(await get(path)).toMatchObject(freshness(1, 2, true));
  });

  it("a dub notes the revision of the translation it speaks, and reads stale after an edit, in its list too", async () => {
    const txt = await freshTranscript();
    const dubbingId = await completedDub(txt, await completedTranslation(txt));
    expect(await get(`/v1/dubbings/${dubbingId}`)).toMatchObject(freshness(1, 1, false));
    await editFirstSegment(txt);
    expect(await get(`/v1/dubbings/${dubbingId}`)).toMatchObject(freshness(1, 2, true));
    expect(await get(`/v1/transcriptions/${txt}/dubbings`)).toEqual([expect.objectContaining({ dubbingId, ...freshness(1, 2, true) })]);
  });

  it("the catalog lists each indexed transcript's revision beside the current one", async () => {
    const txt = await freshTranscript();
    await indexEntry(txt, 1);
    const entryOf = async () =>
      ((await get("/v1/catalog/transcriptions")) as unknown as Array<Record<string, unknown>>).find((e) => e["textSourceId"] === txt);
    expect(await entryOf()).toMatchObject(freshness(1, 1, false));
    await editFirstSegment(txt);
    expect(await entryOf()).toMatchObject(freshness(1, 2, true));
  });

  it("the transcript's own files hold the revision of the transcription, and read stale after an edit", async () => {
    const txt = await freshTranscript();
    expect(await get(`/v1/transcriptions/${txt}?layers=segments`)).toMatchObject({ outputKeysRevision: 1, outputKeysStale: false });
    await editFirstSegment(txt);
    expect(await get(`/v1/transcriptions/${txt}?layers=segments`)).toMatchObject({ outputKeysRevision: 1, outputKeysStale: true });
  });
});

/** Runs `fn` with the enterprise plan's monthly limit of `meter` set to `limit`, then puts the default back. */
async function withPlanLimit(meter: QuotaMeter, limit: number, fn: () => Promise<void>): Promise<void> {
  await patchSettings({ quotas: { enterprise: { [meter]: limit } } });
  try {
    await fn();
  } finally {
    await patchSettings({
      quotas: { enterprise: { [meter]: DEFAULT_SETTINGS.quotas.enterprise[meter] } },
    });
  }
}

/** The project's catalog entry for `txt`, as an indexer run made from `revision` leaves it (an empty generation, cut over). */
async function indexEntry(txt: string, revision: number, projectId = t.projectId): Promise<void> {
  const jobId = newId("job");
  await env.CATALOG.get(env.CATALOG.idFromName(collectionName(projectId))).cutover(txt, `${jobId}.0`, {
    jobId,
    chunkCount: 0,
    segmentCount: 3,
    transcriptRevision: revision,
    language: "en",
    denseEngine: "test",
    denseModel: "test",
    dimensions: 1,
    sparseEngine: "test",
    indexedAt: new Date().toISOString(),
  });
}

describe("POST /v1/transcriptions/{id}/regenerate", () => {
  it("files: a transcript_files job rewrites the bucket's files from the current segments, which then read current", async () => {
    const txt = await freshTranscript();
    await editFirstSegment(txt, "Welcome back, edited.");
    const res = await regenerate(txt, { outputs: { files: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data.jobs.map((j) => [j.output, j.job.serviceType])).toEqual([["files", "transcript_files"]]);
    const done = await waitForStatus(t, res.body.data.jobs[0]!.job.jobId, "completed");
    expect(done.resultSummary).toMatchObject({ textSourceId: txt, revision: 2 });
    const record = await get(`/v1/transcriptions/${txt}?layers=segments`);
    expect(record).toMatchObject({ outputKeysRevision: 2, outputKeysStale: false });
    const keys = record["outputKeys"] as Record<string, string>;
    const s3 = testS3();
    const srt = await (await s3.getObject(t.bucket, keys["srt"]!)).text();
    const text = await (await s3.getObject(t.bucket, keys["fullText"]!)).text();
    expect([srt, text].map((f) => f.includes("Welcome back, edited."))).toEqual([true, true]);
  });

  it("creates the jobs of the outputs named, and only those", async () => {
    const txt = await freshTranscript();
    const before = await jobCount();
    const res = await regenerate(txt, { outputs: { metadata: true, summary: true, index: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data.jobs.map((j) => [j.output, j.job.serviceType])).toEqual([
      ["index", "indexer"],
      ["metadata", "metadata"],
      ["summary", "summarization"],
    ]);
    expect(res.body.data.refused).toEqual([]);
    expect(await jobCount()).toBe(before + 3);
  });

  it('"stale" creates a job only for the outputs that read stale', async () => {
    const txt = await freshTranscript();
    await completedTranslation(txt, "es");
    await completedTranslation(txt, "ca");
    await editFirstSegment(txt);
    // Spanish is brought up to date by hand; Catalan is left behind.
    await completedTranslation(txt, "es");
    const res = await regenerate(txt, { outputs: { translations: "stale", metadata: "stale" } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data.jobs.map((j) => [j.output, j.languageKey, j.job.serviceType, j.job.input["targetLanguage"]])).toEqual([
      ["translations", "ca", "translation", "ca"],
    ]);
  });

  it("a dub is regenerated as a dubbing job of the same transcript and language, naming the dub it replaces", async () => {
    const txt = await freshTranscript();
    const dubbingId = await completedDub(txt, await completedTranslation(txt));
    await editFirstSegment(txt);
    const res = await regenerate(txt, { outputs: { dubbings: "stale" } });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    const [made] = res.body.data.jobs;
    expect(made).toMatchObject({
      output: "dubbings",
      dubbingId,
      job: { serviceType: "dubbing", input: { transcriptionId: txt, targetLanguage: "es" } },
    });
    const options = (made?.job.input["options"] ?? {}) as Record<string, unknown>;
    expect(options["regenerateFrom"]).toBe(dubbingId);
  });

  it("a job its plan refuses is listed in refused beside the jobs made", async () => {
    const txt = await freshTranscript();
    await withPlanLimit("metadata_credits", 0, async () => {
      const res = await regenerate(txt, { outputs: { metadata: true, summary: true } });
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.data.jobs.map((j) => j.output)).toEqual(["summary"]);
      expect(res.body.data.refused).toEqual([{ output: "metadata", error: expect.objectContaining({ code: "quotaExceeded" }) }]);
    });
  });

  it("when no job could be made, the first refusal is the answer", async () => {
    const txt = await freshTranscript();
    await withPlanLimit("metadata_credits", 0, async () => {
      const res = await regenerate(txt, { outputs: { metadata: true } });
      expectError(res, 429, "quotaExceeded");
    });
  });

  it("refuses an output it does not know (422) and creates nothing", async () => {
    const txt = await freshTranscript();
    const before = await jobCount();
    const res = await regenerate(txt, { outputs: { captions: true } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "outputs.captions", issue: "notAllowed" }]);
    expect(await jobCount()).toBe(before);
  });

  it("refuses a request that selects nothing to regenerate (422 nothingToRegenerate)", async () => {
    const txt = await freshTranscript();
    const res = await regenerate(txt, { outputs: "stale" });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "outputs", issue: "nothingToRegenerate" }]);
  });

  it("refuses a translation the transcript does not have (422 notTranslated)", async () => {
    const txt = await freshTranscript();
    const res = await regenerate(txt, { outputs: { translations: ["fr"] } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "outputs.translations.0", issue: "notTranslated:fr" }]);
  });

  it("is 404 for another project's transcript, and creates nothing there", async () => {
    const theirs = (await completedTranscript(other, TEXTS)).textSourceId;
    const res = await regenerate(theirs, { outputs: { metadata: true } });
    expectError(res, 404, "notFound");
  });

  it("needs both job:create and transcript:write", async () => {
    const txt = await freshTranscript();
    const body = { outputs: { metadata: true } };
    const createOnly = await regenerate(txt, body, (await projectKey(t, ["job:create"])).secret);
    const writeOnly = await regenerate(txt, body, (await projectKey(t, ["transcript:write"])).secret);
    const both = await regenerate(txt, body, (await projectKey(t, ["job:create", "transcript:write"])).secret);
    expect([createOnly, writeOnly].map((r) => r.body.error?.details)).toEqual([
      [{ path: "authorization", issue: "missingPermission:transcript:write" }],
      [{ path: "authorization", issue: "missingPermission:job:create" }],
    ]);
    expect(both.status).toBe(202);
  });
});

describe("list pages read staleness in one statement per page", () => {
  /** The D1 statements a GET costs, counted by the app's own counter (worker/db/query-count.ts). */
  async function statementsOf(path: string, tenant = t): Promise<number> {
    const app = buildApp();
    const ask = async () => {
      const res = await app.request(
        path,
        { headers: { authorization: `Bearer ${tenant.projectKey}` } },
        { ...env, COUNT_D1_QUERIES: "true" },
      );
      expect(res.status).toBe(200);
      return parseQueryCount(res.headers.get(REQUEST_HEADER))?.statements ?? 0;
    };
    // The fewer of two asks in a row: the key's cache entry (5 s) lapses, and the key is read again, in one of them at most.
    const statements = Math.min(await ask(), await ask());
    // A list reads at least its records: a count of none would mean the counter was off.
    expect(statements).toBeGreaterThan(0);
    return statements;
  }

  /** `n` completed translations into languages of their own, with a dub of each, written straight to D1 (the routes only read them). */
  async function seedRecords(txt: string, n: number): Promise<void> {
    const db = getDb(env.DB);
    const now = new Date().toISOString();
    const base = { projectId: t.projectId, jobId: newId("job"), createdAt: now, updatedAt: now };
    const index: Record<string, { translationId: string }> = {};
    for (const languageKey of ["es", "ca", "gl"].slice(0, n)) {
      const translationId = newId("translation");
      index[languageKey] = { translationId };
      await db.insert(translations).values({
        ...base,
        id: translationId,
        textSourceId: txt,
        status: "completed",
        sourceLanguage: "en",
        targetLanguage: languageKey,
        languageKey,
        sourceLayer: "current",
        translationBackend: "test",
        model: "test",
        transcriptRevision: 1,
        outputKeys: { srt: "out/x.srt", vtt: "out/x.vtt" },
        completedAt: now,
      });
      await db.insert(dubbings).values({
        ...base,
        id: newId("dubbing"),
        transcriptionId: txt,
        translationId,
        status: "completed",
        sourceLanguage: "en",
        targetLanguage: languageKey,
        languageKey,
        options: {},
        outputPrefix: "out/",
      });
    }
    await db.update(transcripts).set({ translation: index }).where(eq(transcripts.id, txt));
  }

  it.each(["translations", "dubbings"])("a transcript's %s: three items cost the statements one does", async (list) => {
    const [one, three] = [await freshTranscript(), await freshTranscript()];
    await seedRecords(one, 1);
    await seedRecords(three, 3);
    expect(await statementsOf(`/v1/transcriptions/${three}/${list}`)).toBe(await statementsOf(`/v1/transcriptions/${one}/${list}`));
  });

  it("the catalog's inventory: three entries cost the statements one does", async () => {
    const [lone, many] = [await createTenant({ plan: "enterprise" }), await createTenant({ plan: "enterprise" })];
    await indexEntry((await completedTranscript(lone, TEXTS)).textSourceId, 1, lone.projectId);
    for (let i = 0; i < 3; i++) await indexEntry((await completedTranscript(many, TEXTS)).textSourceId, 1, many.projectId);
    expect(await statementsOf("/v1/catalog/transcriptions", many)).toBe(await statementsOf("/v1/catalog/transcriptions", lone));
  });
});

/** How many jobs the project has, read from D1 (a list page would stop at its limit). */
async function jobCount(): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM jobs WHERE project_id = ?").bind(t.projectId).first<{ n: number }>();
  return row?.n ?? 0;
}
