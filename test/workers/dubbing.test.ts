import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { LeasedTask } from "../../contracts/runner-protocol";
import type { TranslationSave, TranslationSource } from "../../contracts/services/translation";
import { call, expectError } from "./helpers/api";
import { dubbingSave } from "./helpers/results";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";

/**
 * Dubbing and voices through the Worker, the test playing the runner: create checks (translation,
 * voices, speech language), the records, the runner calls (translation, speaker voices, the save),
 * the spec's resultSummary; voice creation by POST /v1/voices and its allowance.
 */

let t: Tenant;
let other: Tenant;
let txt: string;
const TEXTS = ["Welcome to the show.", "Thanks for having me.", "Let us begin."];

beforeAll(async () => {
  t = await createTenant();
  other = await createTenant();
  txt = (await completedTranscript(t, TEXTS)).textSourceId;
});
afterEach(async () => {
  await cancelUnfinished(t);
});

const dub = (input: Record<string, unknown>, tenant = t) =>
  call<Job>("POST", "/v1/jobs", {
    key: tenant.projectKey,
    body: { serviceType: "dubbing", input: { transcriptionId: txt, targetLanguage: "es", ...input } },
  });

const PROFILE = { kind: "profile", engine: "espeak-ng", language: "es", baseVoice: "es+f3" };
const created = (language = "es") => ({
  spec: { ...PROFILE, language },
  model: "espeak-ng 1.51",
  referenceKey: null,
  sampleSpeechSec: 4.2,
});

/** A translation of `txt` into `language`, completed by the test playing the runner. */
async function completedTranslation(language = "es", textSourceId = txt): Promise<string> {
  const job = await createJob(t, "translation", { textSourceId, targetLanguage: language });
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
  const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
  const save: TranslationSave = {
    translationBackend: "apertium",
    model: "apertium:eng-spa",
    sourceLanguage: "en",
    targetLanguage: language,
    transcriptRevision: 1,
    durationSec: source.durationSec,
    segments: source.segments.map((s) => ({ ...s, text: `[${language}] ${s.text}`, sourceText: s.text })),
    outputKeys: job.input["resolvedOutputKeys"] as TranslationSave["outputKeys"],
    glossary: { termsProtected: 0, missing: [] },
    timing: { translateSec: 0.01, segmentsPerSec: 300 },
  };
  await fakeRunner.call(task, "translation.save", save);
  const translationId = String(job.input["translationId"]);
  await fakeRunner.complete(task, {
    translationId,
    textSourceId,
    sourceLanguage: "en",
    targetLanguage: language,
    languageKey: language,
    sourceLayer: "current",
    segmentCount: 3,
    durationSec: 6,
    translationBackend: "apertium",
    model: "apertium:eng-spa",
  });
  await waitForStatus(t, job.jobId, "completed");
  return translationId;
}

/** A ready voice made by POST /v1/voices, completed by the test playing the runner. */
async function readyVoice(language = "es"): Promise<string> {
  const res = await call<{ voiceId: string; job: Job }>("POST", "/v1/voices", {
    key: t.projectKey,
    body: { name: "Host", connectionId: t.connectionId, bucket: t.bucket, sourceKey: await sourceKeyOf(), language },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  const task = await fakeRunner.leaseWhenReady(res.body.data.job.jobId, ["voice_creation"]);
  await fakeRunner.complete(task, { voiceId: res.body.data.voiceId, ...created(language) });
  await waitForStatus(t, res.body.data.job.jobId, "completed");
  return res.body.data.voiceId;
}

async function sourceKeyOf(): Promise<string> {
  const res = await call<{ source: { sourceKey: string } }>("GET", `/v1/transcriptions/${txt}?layers=segments`, { key: t.projectKey });
  return res.body.data.source.sourceKey;
}

const summaryOf = (job: Job) => ({
  dubbingId: String(job.input["dubbingId"]),
  transcriptionId: txt,
  translationId: String(job.input["translationId"]),
  sourceLanguage: "en",
  targetLanguage: "es",
  languageKey: "es",
  textPreview: "[es] Welcome to the show.",
  segmentCount: 3,
  durationSec: 6,
});

async function lease(job: Job): Promise<LeasedTask> {
  return fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
}

describe("dubbing: create", () => {
  it("without a translationId, plans a translation of its own and records both", async () => {
    const res = await dub({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const input = res.body.data.input;
    expect(input["dubbingId"]).toMatch(/^dub_/);
    expect(input["translationId"]).toMatch(/^trl_/);
    expect(input["translation"]).toMatchObject({ translationId: input["translationId"], languageKey: "es" });
    expect(input["options"]).toEqual({
      diarization: { enabled: true, minSpeakers: null, maxSpeakers: null },
      voiceAssignments: {},
      voiceCloning: { enabled: true },
      tts: { enabled: true, modelId: null },
    });
    const record = await call<{ status: string }>("GET", `/v1/dubbings/${String(input["dubbingId"])}`, { key: t.projectKey });
    expect(record.body.data.status).toBe("pending");
    const translation = await call<{ status: string }>("GET", `/v1/translations/${String(input["translationId"])}`, { key: t.projectKey });
    expect(translation.body.data.status).toBe("pending");
  });

  it("with a translationId, dubs that translation and plans none", async () => {
    const translationId = await completedTranslation("es");
    const res = await dub({ translationId });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.input["translationId"]).toBe(translationId);
    expect(res.body.data.input["translation"]).toBeUndefined();
  });

  it("refuses a translation into another language", async () => {
    const translationId = await completedTranslation("ca");
    const res = await dub({ translationId });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.translationId", issue: "translationLanguageMismatch" }]);
  });

  it("refuses a translation a later one replaced", async () => {
    const fresh = (await completedTranscript(t, ["one", "two"])).textSourceId;
    const first = await completedTranslation("ca", fresh);
    await completedTranslation("ca", fresh);
    const res = await dub({ transcriptionId: fresh, targetLanguage: "ca", translationId: first });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details, JSON.stringify(res.body.error)).toEqual([
      { path: "input.translationId", issue: "translationSuperseded" },
    ]);
  });

  it("refuses another project's voice as not found, and charges nothing", async () => {
    const before = (await usage(t))["dubbing_jobs"] ?? 0;
    const res = await dub({ options: { voiceAssignments: { SPEAKER_00: "vce_nothere000000000000" } } });
    expectError(res, 404, "notFound");
    expect(res.body.error?.message).toBe("voice not found: vce_nothere000000000000");
    expect((await usage(t))["dubbing_jobs"] ?? 0).toBe(before);
  });

  it("refuses a voice made for another language", async () => {
    const voiceId = await readyVoice("ca");
    const res = await dub({ options: { voiceAssignments: { SPEAKER_00: voiceId } } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.options.voiceAssignments.SPEAKER_00", issue: "voiceLanguageMismatch" }]);
  });

  it("stores an assigned voice's spec on the job for the runner", async () => {
    const voiceId = await readyVoice("es");
    const res = await dub({ options: { voiceAssignments: { SPEAKER_01: voiceId } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.input["assignedVoices"]).toEqual({ SPEAKER_01: { voiceId, spec: created().spec, referenceKey: null } });
  });

  it("refuses a target the speech engine cannot speak", async () => {
    const res = await call<Job>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: { serviceType: "dubbing", input: { transcriptionId: txt, targetLanguage: "xh" } },
    });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.targetLanguage", issue: "unsupportedSpeechLanguage" }]);
  });
});

describe("dubbing: runner calls and result", () => {
  it("a speaker's voice is created once per label, however often the call comes", async () => {
    const job = (await dub({})).body.data;
    const task = await lease(job);
    const a = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created: created() });
    const b = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created: created() });
    expect(a.body.data.voiceId).toMatch(/^vce_/);
    expect(b.body.data.voiceId).toBe(a.body.data.voiceId);
    const voice = await call<{ origin: string; speakerLabel: string; status: string }>("GET", `/v1/voices/${a.body.data.voiceId}`, {
      key: t.projectKey,
    });
    expect(voice.body.data).toMatchObject({ origin: "dubbing", speakerLabel: "SPEAKER_00", status: "ready" });
  });

  it("a speaker's voice made during a dubbing costs no voice_creation credit", async () => {
    const before = (await usage(t))["voice_creation"] ?? 0;
    const task = await lease((await dub({})).body.data);
    await fakeRunner.call(task, "voices.create", { label: "SPEAKER_03", created: created() });
    expect((await usage(t))["voice_creation"] ?? 0).toBe(before);
  });

  it("completes with the spec's resultSummary and the record holds what was saved", async () => {
    const translationId = await completedTranslation("es");
    const job = (await dub({ translationId })).body.data;
    const task = await lease(job);
    const given = await fakeRunner.call<{ segments: Array<{ text: string }> }>(task, "dubbing.translation", {});
    expect(given.body.data.segments.map((s) => s.text)).toEqual(TEXTS.map((x) => `[es] ${x}`));
    expect((await fakeRunner.call(task, "dubbing.save", dubbingSave(job))).status).toBe(200);
    expect((await fakeRunner.complete(task, summaryOf(job))).status).toBe(200);
    const done = await waitForStatus(t, job.jobId, "completed");
    expect(done.resultSummary).toEqual(summaryOf(job));
    const record = await call<Record<string, unknown>>("GET", `/v1/dubbings/${String(job.input["dubbingId"])}`, { key: t.projectKey });
    expect(record.body.data).toMatchObject({
      status: "completed",
      translationId,
      sync: { durationDeltaSec: 0.01 },
      speakers: [expect.objectContaining({ label: "SPEAKER_00" })],
    });
    const list = await call<Array<{ dubbingId: string }>>("GET", `/v1/transcriptions/${txt}/dubbings`, { key: t.projectKey });
    expect(list.body.data.map((d) => d.dubbingId)).toContain(job.input["dubbingId"]);
  });

  it("a job that fails leaves its dubbing and its own translation failed", async () => {
    const job = (await dub({})).body.data;
    const task = await lease(job);
    await fakeRunner.fail(task, "unsupported_media", false, "no audio");
    await waitForStatus(t, job.jobId, "failed");
    const dubbing = await call<{ status: string }>("GET", `/v1/dubbings/${String(job.input["dubbingId"])}`, { key: t.projectKey });
    const translation = await call<{ status: string }>("GET", `/v1/translations/${String(job.input["translationId"])}`, {
      key: t.projectKey,
    });
    expect([dubbing.body.data.status, translation.body.data.status]).toEqual(["failed", "failed"]);
  });

  it("another project's dubbing is not found", async () => {
    const job = (await dub({})).body.data;
    expectError(await call("GET", `/v1/dubbings/${String(job.input["dubbingId"])}`, { key: other.projectKey }), 404, "notFound");
  });
});

describe("voices", () => {
  it("POST /v1/voices answers 202 with a pending voice and its job, and costs one voice_creation credit", async () => {
    const before = (await usage(t))["voice_creation"] ?? 0;
    const res = await call<{ voiceId: string; status: string; job: Job }>("POST", "/v1/voices", {
      key: t.projectKey,
      body: { name: "Guest", connectionId: t.connectionId, bucket: t.bucket, sourceKey: await sourceKeyOf(), language: "es" },
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({ status: "pending", origin: "api", name: "Guest" });
    expect(res.body.data.job.serviceType).toBe("voice_creation");
    expect((await usage(t))["voice_creation"]).toBe(before + 1);
  });

  it("a voice becomes ready with the runner's spec, and is listed", async () => {
    const voiceId = await readyVoice("es");
    const res = await call<{ status: string; kind: string; spec: unknown }>("GET", `/v1/voices/${voiceId}`, { key: t.projectKey });
    expect(res.body.data).toMatchObject({ status: "ready", kind: "profile", engine: "espeak-ng", spec: created().spec });
    const list = await call<Array<{ voiceId: string }>>("GET", "/v1/voices?origin=api", { key: t.projectKey });
    expect(list.body.data.map((v) => v.voiceId)).toContain(voiceId);
  });

  it("refuses a sample that is not audio or video, and a language the speech engine cannot speak", async () => {
    const base = { name: "X", connectionId: t.connectionId, bucket: t.bucket, language: "es" };
    const text = await call("POST", "/v1/voices", { key: t.projectKey, body: { ...base, sourceKey: "notes/readme.txt" } });
    expectError(text, 422, "validationError");
    const xh = await call("POST", "/v1/voices", { key: t.projectKey, body: { ...base, sourceKey: await sourceKeyOf(), language: "xh" } });
    expectError(xh, 422, "validationError");
  });

  it("a deleted voice is gone", async () => {
    const voiceId = await readyVoice("es");
    expect((await call("DELETE", `/v1/voices/${voiceId}`, { key: t.projectKey })).status).toBe(200);
    expectError(await call("GET", `/v1/voices/${voiceId}`, { key: t.projectKey }), 404, "notFound");
  });

  it("another project's voice is not found", async () => {
    const voiceId = await readyVoice("es");
    expectError(await call("GET", `/v1/voices/${voiceId}`, { key: other.projectKey }), 404, "notFound");
  });
});
