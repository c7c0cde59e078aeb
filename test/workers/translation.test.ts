import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { LeasedTask } from "../../contracts/runner-protocol";
import type { TranslationSource } from "../../contracts/services/translation";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, patchSettings, waitForStatus } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, translationSaveBody, usage } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";

/**
 * Translation through the Worker, the test playing the runner: create checks (pairs, plans, output
 * probes), the record, the runner calls that read the source layer and save the translation, the
 * spec's resultSummary, the record routes, and replacement on a re-run.
 */

let t: Tenant;
let other: Tenant;
let txt: string;
const TEXTS = ["Welcome to the kitchen.", "Today we bake bread.", "Knead the dough well."];

beforeAll(async () => {
  t = await createTenant();
  other = await createTenant();
  txt = (await completedTranscript(t, TEXTS)).textSourceId;
});
afterEach(async () => {
  await cancelUnfinished(t);
  await patchSettings({ policy: { translation: { backend: "apertium", free: { targetLanguages: null } } } });
});

const translate = (input: Record<string, unknown>, tenant = t) =>
  call<Job>("POST", "/v1/jobs", { key: tenant.projectKey, body: { serviceType: "translation", input } });

const summaryOf = (job: Job, source: TranslationSource) => ({
  translationId: String(job.input["translationId"]),
  textSourceId: String(job.input["textSourceId"]),
  sourceLanguage: String(job.input["sourceLanguage"]),
  targetLanguage: String(job.input["targetLanguage"]),
  languageKey: String(job.input["languageKey"]),
  sourceLayer: source.sourceLayer,
  segmentCount: source.segments.length,
  durationSec: source.durationSec,
  translationBackend: "apertium",
  model: "apertium:eng-spa",
});

/** Leases the job's step, reads the source, saves `texts` and completes: the runner's whole part. */
async function runTranslation(job: Job, texts?: string[]): Promise<{ job: Job; source: TranslationSource; task: LeasedTask }> {
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
  const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
  const saved = await fakeRunner.call(task, "translation.save", translationSaveBody(source, job, texts));
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  expect((await fakeRunner.complete(task, summaryOf(job, source))).status).toBe(200);
  return { job: await waitForStatus(t, job.jobId, "completed"), source, task };
}

describe("translation: create", () => {
  it("infers the source language from the transcript and names the files next to its subtitles", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es" });
    expect(job.input).toMatchObject({ sourceLanguage: "en", sourceLanguageInferred: true, languageKey: "es", sourceLayer: "current" });
    expect(job.input["translationId"]).toMatch(/^trl_/);
    const transcript = await call<{ outputKeys: { srt: string } }>("GET", `/v1/transcriptions/${txt}?layers=segments`, {
      key: t.projectKey,
    });
    const dir = transcript.body.data.outputKeys.srt.replace(/[^/]*$/, "");
    expect(job.input["resolvedOutputKeys"]).toEqual({ srt: `${dir}transcript.es.srt`, vtt: `${dir}transcript.es.vtt` });
  });

  it("costs one translation credit at create", async () => {
    const before = (await usage(t))["translation_jobs"] ?? 0;
    await createJob(t, "translation", { textSourceId: txt, targetLanguage: "ca" });
    expect((await usage(t))["translation_jobs"]).toBe(before + 1);
  });

  it("keeps a region form as the language key", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es-mx" });
    expect(job.input).toMatchObject({ targetLanguage: "es-MX", languageKey: "es-MX" });
  });

  it("refuses a pair the engine cannot translate with a 422 naming it, and charges nothing", async () => {
    const before = (await usage(t))["translation_jobs"] ?? 0;
    const res = await translate({ textSourceId: txt, targetLanguage: "de" });
    expectError(res, 422, "validationError");
    expect(res.body.error?.message).toContain("from en into de is not supported by the apertium engine");
    expect(res.body.error?.details).toEqual([{ path: "input.targetLanguage", issue: "unsupportedLanguagePair" }]);
    expect((await usage(t))["translation_jobs"] ?? 0).toBe(before);
  });

  it("names sourceLanguage when the pair fails because of the source the caller gave", async () => {
    const res = await translate({ textSourceId: txt, sourceLanguage: "fr", targetLanguage: "es" });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceLanguage", issue: "unsupportedLanguagePair" }]);
  });

  it("refuses the transcript's own language as the target", async () => {
    const res = await translate({ textSourceId: txt, targetLanguage: "en" });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.targetLanguage", issue: "sameLanguage" }]);
  });

  it("refuses a target the plan does not offer", async () => {
    await patchSettings({ policy: { translation: { free: { targetLanguages: ["ca"] } } } });
    const res = await translate({ textSourceId: txt, targetLanguage: "es" });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.targetLanguage", issue: "targetNotInPlan" }]);
  });

  it("refuses another project's transcript as not found", async () => {
    const res = await translate({ textSourceId: txt, targetLanguage: "es" }, other);
    expectError(res, 404, "notFound");
  });
});

describe("translation: policy", () => {
  it("lists the configured engine's pairs per plan", async () => {
    const res = await call<{ translationBackend: string; plans: Record<string, { pairs: Array<{ source: string; targets: string[] }> }> }>(
      "GET",
      "/v1/jobs/policy?serviceType=translation",
    );
    expect(res.status).toBe(200);
    expect(res.body.data.translationBackend).toBe("apertium");
    const en = res.body.data.plans["free"]!.pairs.find((p) => p.source === "en");
    expect(en?.targets).toEqual(expect.arrayContaining(["es", "ca", "gl"]));
    expect(res.body.data.plans["enterprise"]!.pairs.find((p) => p.source === "es")?.targets).toContain("en");
  });

  it("narrows a plan's pairs to its target languages", async () => {
    await patchSettings({ policy: { translation: { free: { targetLanguages: ["ca"] } } } });
    const res = await call<{ plans: Record<string, { pairs: Array<{ source: string; targets: string[] }> }> }>(
      "GET",
      "/v1/jobs/policy?serviceType=translation",
    );
    expect(res.body.data.plans["free"]!.pairs).toEqual([{ source: "en", targets: ["ca"] }]);
  });
});

describe("translation: runner calls", () => {
  it("the source is the current layer by default, with the project glossary", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    const res = await fakeRunner.call<TranslationSource>(task, "translation.source", {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ textSourceId: txt, language: "en", sourceLayer: "current", glossary: [] });
    expect(res.body.data.segments).toEqual(TEXTS.map((text, id) => ({ id, start: id * 2, end: id * 2 + 2, text })));
  });

  it("the source carries the project glossary, for the engine to protect", async () => {
    const g = await createTenant();
    const gTxt = (await completedTranscript(g, ["We use Kubernetes daily."])).textSourceId;
    await call("POST", "/v1/glossary", { key: g.projectKey, body: { term: "kubernetes", preferred: "Kubernetes" } });
    const job = await createJob(g, "translation", { textSourceId: gTxt, targetLanguage: "es" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    const res = await fakeRunner.call<TranslationSource>(task, "translation.source", {});
    expect(res.body.data.glossary).toEqual([{ term: "kubernetes", preferred: "Kubernetes" }]);
    await cancelUnfinished(g);
  });

  it("sourceLayer raw reads the engine's words, not a later edit", async () => {
    const fresh = (await completedTranscript(t, ["hello there", "second line"])).textSourceId;
    const edit = await call("PATCH", `/v1/transcriptions/${fresh}/segments`, {
      key: t.projectKey,
      body: { revision: 1, segments: [{ id: 0, text: "Hello there, edited." }] },
    });
    expect(edit.status).toBe(200);
    const read = async (sourceLayer: string) => {
      const job = await createJob(t, "translation", { textSourceId: fresh, targetLanguage: "es", sourceLayer });
      const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
      const text = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data.segments[0]?.text;
      await fakeRunner.release(task);
      await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
      return text;
    };
    expect(await read("raw")).toBe("hello there");
    expect(await read("current")).toBe("Hello there, edited.");
  });

  it("a save that merges or moves cues is refused and stores nothing", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "gl" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
    const merged = translationSaveBody(source, job);
    merged.segments = merged.segments.slice(0, 2);
    expectError(await fakeRunner.call(task, "translation.save", merged), 422, "protocolError");
    const moved = translationSaveBody(source, job);
    moved.segments[1] = { ...moved.segments[1]!, start: 2.5 };
    expectError(await fakeRunner.call(task, "translation.save", moved), 422, "protocolError");
    const record = await call<{ status: string; segments: unknown }>("GET", `/v1/translations/${String(job.input["translationId"])}`, {
      key: t.projectKey,
    });
    expect(record.body.data).toMatchObject({ status: "pending", segments: null });
  });
});

describe("translation: what the runner reports is checked against the job", () => {
  it("a save in another target language than the job's is refused with 422 and stores nothing", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "gl" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
    const res = await fakeRunner.call(task, "translation.save", { ...translationSaveBody(source, job), targetLanguage: "ca" });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.targetLanguage", issue: "notTheJobs" }]);
  });

  it("a result naming another translation is refused with 422", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
    expect((await fakeRunner.call(task, "translation.save", translationSaveBody(source, job))).status).toBe(200);
    const res = await fakeRunner.complete(task, { ...summaryOf(job, source), translationId: "trl_someoneelse" });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.translationId", issue: "notTheJobs" }]);
  });
});

describe("translation: result", () => {
  it("completes with the spec's resultSummary", async () => {
    const created = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es" });
    const { job, source } = await runTranslation(created);
    expect(job.resultSummary).toEqual(summaryOf(created, source));
    expect(Object.keys(job.resultSummary ?? {}).sort()).toEqual(
      [
        "translationId",
        "textSourceId",
        "sourceLanguage",
        "targetLanguage",
        "languageKey",
        "sourceLayer",
        "segmentCount",
        "durationSec",
        "translationBackend",
        "model",
      ].sort(),
    );
  });

  it("the record keeps every segment's id, start and end, and is retrievable by id", async () => {
    const created = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es" });
    await runTranslation(created);
    const id = String(created.input["translationId"]);
    const res = await call<{ segments: Array<Record<string, unknown>>; current: boolean; status: string }>(
      "GET",
      `/v1/translations/${id}`,
      {
        key: t.projectKey,
      },
    );
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      translationId: id,
      status: "completed",
      current: true,
      languageKey: "es",
      model: "apertium:eng-spa",
    });
    expect(res.body.data.segments).toEqual(
      TEXTS.map((text, i) => ({ id: i, start: i * 2, end: i * 2 + 2, text: `[es] ${text}`, sourceText: text })),
    );
  });

  it("the transcript lists its languages, and each language's array is readable", async () => {
    const created = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "ca" });
    await runTranslation(created, ["Benvinguts a la cuina.", "Avui fem pa.", "Pastau bé la massa."]);
    const list = await call<{ translations: Array<{ languageKey: string; translationId: string }> }>(
      "GET",
      `/v1/transcriptions/${txt}/translations`,
      { key: t.projectKey },
    );
    expect(list.body.data.translations).toContainEqual(
      expect.objectContaining({ languageKey: "ca", translationId: created.input["translationId"], segmentCount: 3 }),
    );
    const ca = await call<{ segments: Array<{ text: string }> }>("GET", `/v1/transcriptions/${txt}/translations/ca`, { key: t.projectKey });
    expect(ca.body.data.segments.map((s) => s.text)).toEqual(["Benvinguts a la cuina.", "Avui fem pa.", "Pastau bé la massa."]);
  });

  it("the transcript holds the array under translation.<languageKey>", async () => {
    const fresh = (await completedTranscript(t, ["good morning"])).textSourceId;
    await runTranslation(await createJob(t, "translation", { textSourceId: fresh, targetLanguage: "es-MX" }), ["buenos días"]);
    const res = await call<{ translation: Record<string, Array<{ id: number; text: string }>> }>(
      "GET",
      `/v1/transcriptions/${fresh}?layers=translation`,
      { key: t.projectKey },
    );
    expect(res.body.data.translation).toEqual({ "es-MX": [{ id: 0, start: 0, end: 2, text: "buenos días", sourceText: "good morning" }] });
  });

  it("re-running the same target replaces the array; the earlier record stays, no longer current", async () => {
    const fresh = (await completedTranscript(t, ["one", "two"])).textSourceId;
    const first = await createJob(t, "translation", { textSourceId: fresh, targetLanguage: "es" });
    await runTranslation(first, ["uno (primera)", "dos (primera)"]);
    const second = await createJob(t, "translation", { textSourceId: fresh, targetLanguage: "es" });
    await runTranslation(second, ["uno", "dos"]);
    const es = await call<{ translationId: string; segments: Array<{ text: string }> }>(
      "GET",
      `/v1/transcriptions/${fresh}/translations/es`,
      {
        key: t.projectKey,
      },
    );
    expect(es.body.data.translationId).toBe(second.input["translationId"]);
    expect(es.body.data.segments.map((s) => s.text)).toEqual(["uno", "dos"]);
    const old = await call<{ current: boolean; segments: unknown }>("GET", `/v1/translations/${String(first.input["translationId"])}`, {
      key: t.projectKey,
    });
    expect(old.body.data).toMatchObject({ current: false, segments: null });
  });

  it("a job that fails leaves its record failed", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "eo" });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
    await fakeRunner.fail(task, "unsupported_language_pair", false, "no such mode on this runner");
    await waitForStatus(t, job.jobId, "failed");
    const res = await call<{ status: string }>("GET", `/v1/translations/${String(job.input["translationId"])}`, { key: t.projectKey });
    expect(res.body.data.status).toBe("failed");
  });

  it("another project's translation is not found", async () => {
    const job = await createJob(t, "translation", { textSourceId: txt, targetLanguage: "es" });
    expectError(await call("GET", `/v1/translations/${String(job.input["translationId"])}`, { key: other.projectKey }), 404, "notFound");
    expectError(await call("GET", `/v1/transcriptions/${txt}/translations/fr`, { key: t.projectKey }), 404, "notFound");
  });
});
