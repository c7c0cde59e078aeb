import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { SPEECH_SYNTHESIS_DEFAULT_MODELS } from "../../contracts/model-refs";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import type { LeasedTask } from "../../contracts/runner-protocol";
import type { TranslationSave, TranslationSource } from "../../contracts/services/translation";
import type { TranscriptSpeakers } from "../../contracts/services/dubbing";
import { call, expectError } from "./helpers/api";
import { dubbingSave } from "./helpers/results";
import { cancelUnfinished, fakeRunner, patchSettings, waitForStatus } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, diarizedTranscript, usage } from "./helpers/transcripts";
import { recordRedaction } from "./helpers/redaction";
import { createJob } from "./helpers/understanding";
import { env } from "cloudflare:workers";
import { DUBBING_BLOB_KIND, moveLegacyDubbing } from "../../worker/services/dubbing/store";
import { asLegacyRow, d1Row, expectBlobKey, ownerKeys, storedValue } from "./helpers/blobs";

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
  // Pro: no monthly caps get in the way of the many jobs here; the free plan's are tested on their own.
  t = await createTenant({ plan: "pro" });
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
  const { voiceId, job } = await createVoice(language);
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["voice_creation"]);
  await fakeRunner.complete(task, { voiceId, ...created(language) });
  await waitForStatus(t, job.jobId, "completed");
  return voiceId;
}

/** POST /v1/voices: a pending voice and its job. */
async function createVoice(language = "es"): Promise<{ voiceId: string; job: Job }> {
  const res = await call<{ voiceId: string; job: Job }>("POST", "/v1/voices", {
    key: t.projectKey,
    body: { name: "Host", connectionId: t.connectionId, bucket: t.bucket, sourceKey: await sourceKeyOf(), language },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return res.body.data;
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

describe("dubbing: the speech model a request may choose (options.tts.modelId)", () => {
  const modelIssue = [{ path: "input.options.tts.modelId", issue: "modelNotAllowed" }];
  const speechModel = (job: Job) => (job.input["engines"] as { speechModel: string | null }).speechModel;
  afterAll(() =>
    patchSettings({ dubbing: { speechEngine: "local", speechModel: null }, modelChoices: { dubbingSpeech: { replicate: [] } } }),
  );

  it("a model the operator has not listed is refused 422 modelNotAllowed, naming the allowed ones, and nothing is charged", async () => {
    await patchSettings({ dubbing: { speechEngine: "replicate" } });
    const before = (await usage(t))["dubbing_jobs"] ?? 0;
    const res = await dub({ options: { tts: { modelId: "attacker/ssrf-tts" } } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(modelIssue);
    expect(res.body.error?.message).toBe(
      `tts.modelId "attacker/ssrf-tts" is not offered by the replicate speech engine on this deployment; allowed: ${SPEECH_SYNTHESIS_DEFAULT_MODELS.replicate}`,
    );
    expect((await usage(t))["dubbing_jobs"] ?? 0).toBe(before);
  });

  it("a reference that would climb out of Replicate's models route is refused the same way", async () => {
    await patchSettings({ dubbing: { speechEngine: "replicate" } });
    const res = await dub({ options: { tts: { modelId: "x/../../deployments/o/n" } } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(modelIssue);
  });

  it("a model the operator lists for the engine is accepted, and it is the one the runner is told to run", async () => {
    await patchSettings({
      dubbing: { speechEngine: "replicate" },
      modelChoices: { dubbingSpeech: { replicate: ["acme/tts-pro:abc123"] } },
    });
    const res = await dub({ options: { tts: { modelId: "acme/tts-pro:abc123" } } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(speechModel(res.body.data)).toBe("acme/tts-pro:abc123");
    expect(res.body.data.input["options"]).toMatchObject({ tts: { enabled: true, modelId: "acme/tts-pro:abc123" } });
  });

  it("the configured model may be named: it is the one the job runs anyway", async () => {
    await patchSettings({ dubbing: { speechEngine: "replicate", speechModel: "acme/house-voice" } });
    const named = await dub({ options: { tts: { modelId: "acme/house-voice" } } });
    expect(named.status, JSON.stringify(named.body)).toBe(201);
    expect(speechModel(named.body.data)).toBe("acme/house-voice");
    const refused = await dub({ options: { tts: { modelId: SPEECH_SYNTHESIS_DEFAULT_MODELS.replicate } } });
    expectError(refused, 422, "validationError");
  });

  it("without a modelId the job runs the configured model", async () => {
    await patchSettings({ dubbing: { speechEngine: "replicate", speechModel: null } });
    const res = await dub({});
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(speechModel(res.body.data)).toBeNull();
  });

  it("the local speech engine has no models to choose: any modelId is refused", async () => {
    await patchSettings({ dubbing: { speechEngine: "local", speechModel: null } });
    const res = await dub({ options: { tts: { modelId: "gpt-4o-mini-tts" } } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(modelIssue);
    expect(res.body.error?.message).toBe("tts.modelId is not accepted: the local speech engine has no models to choose from; leave it out");
  });
});

describe("dubbing: runner calls and result", () => {
  it("dubbing.speakers answers the transcript's speaker turns, one per run of a speaker's segments, with the names", async () => {
    const diarized = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_00", "SPEAKER_01"]);
    await call("PATCH", `/v1/transcriptions/${diarized.textSourceId}/speakers`, {
      key: t.projectKey,
      body: { revision: 1, names: { SPEAKER_01: "Ada" } },
    });
    const task = await lease((await dub({ transcriptionId: diarized.textSourceId })).body.data);
    const res = await fakeRunner.call<TranscriptSpeakers>(task, "dubbing.speakers", {});
    expect(res.body.data).toEqual({
      turns: [
        { start: 0, end: 4, speaker: "SPEAKER_00" },
        { start: 4, end: 6, speaker: "SPEAKER_01" },
      ],
      speakers: [
        { label: "SPEAKER_00", name: null },
        { label: "SPEAKER_01", name: "Ada" },
      ],
      diarization: { engine: "local-mfcc", model: "test-diarizer" },
      redactedSpans: [],
    });
  });

  it("dubbing.speakers answers where the transcript's redacted words were, so the dub silences them in the source audio", async () => {
    const redacted = (await completedTranscript(t, TEXTS)).textSourceId;
    await recordRedaction(redacted, [
      { type: "EMAIL", start: 3.5, end: 4.25, segmentId: 1 },
      { type: "PERSON", start: 0.5, end: 1 },
    ]);
    const task = await lease((await dub({ transcriptionId: redacted })).body.data);
    const res = await fakeRunner.call<TranscriptSpeakers>(task, "dubbing.speakers", {});
    expect(res.body.data.turns).toEqual([]);
    expect(res.body.data.redactedSpans).toEqual([
      { type: "PERSON", start: 0.5, end: 1 },
      { type: "EMAIL", start: 3.5, end: 4.25 },
    ]);
  });

  it("dubbing.speakers answers no turns for a transcript that was not diarized", async () => {
    const task = await lease((await dub({})).body.data);
    expect((await fakeRunner.call<TranscriptSpeakers>(task, "dubbing.speakers", {})).body.data.turns).toEqual([]);
  });

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

  it("each voice a dubbing makes costs one dubbing_voices credit, once however often its call comes", async () => {
    const before = (await usage(t))["dubbing_voices"] ?? 0;
    const task = await lease((await dub({})).body.data);
    await fakeRunner.call(task, "voices.create", { label: "SPEAKER_00", created: created() });
    await fakeRunner.call(task, "voices.create", { label: "SPEAKER_00", created: created() });
    await fakeRunner.call(task, "voices.create", { label: "SPEAKER_01", created: created() });
    expect((await usage(t))["dubbing_voices"]).toBe(before + 2);
  });

  it("over the plan's dubbing_voices limit no voice is saved: the answer says why, for the runner to leave the speaker unvoiced", async () => {
    const free = await createTenant({ plan: "free" });
    const freeTxt = (await completedTranscript(free, TEXTS)).textSourceId;
    await patchSettings({ quotas: { free: { dubbing_voices: 1 } } });
    try {
      const task = await lease((await dub({ transcriptionId: freeTxt }, free)).body.data);
      const first = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created: created() });
      const second = await fakeRunner.call<{ voiceId: string | null; reason?: string }>(task, "voices.create", {
        label: "SPEAKER_01",
        created: created(),
      });
      expect(first.body.data.voiceId).toMatch(/^vce_/);
      expect(second.status).toBe(200);
      expect(second.body.data.voiceId).toBeNull();
      expect(second.body.data.reason).toMatch(/^free plan limit reached for dubbing_voices: 1 of 1 used this billing period/);
      const voices = await call<Array<{ speakerLabel: string }>>("GET", "/v1/voices?origin=dubbing", { key: free.projectKey });
      expect(voices.body.data.map((v) => v.speakerLabel)).toEqual(["SPEAKER_00"]);
      expect((await usage(free))["dubbing_voices"]).toBe(1);
    } finally {
      await patchSettings({ quotas: { free: { dubbing_voices: DEFAULT_SETTINGS.quotas.free.dubbing_voices } } });
      await cancelUnfinished(free);
    }
  });

  it("completes with the spec's resultSummary and the record holds what was saved", async () => {
    const translationId = await completedTranslation("es");
    const job = (await dub({ translationId })).body.data;
    const task = await lease(job);
    const given = await fakeRunner.call<{ segments: Array<{ text: string }> }>(task, "dubbing.translation", {});
    expect(given.body.data.segments.map((s) => s.text)).toEqual(TEXTS.map((x) => `[es] ${x}`));
    const voice = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created: created() });
    expect((await fakeRunner.call(task, "dubbing.save", dubbingSave(job, voice.body.data.voiceId))).status).toBe(200);
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

describe("dubbing: storage", () => {
  const recordOf = async (id: string) =>
    (await call<Record<string, unknown>>("GET", `/v1/dubbings/${id}`, { key: t.projectKey })).body.data;

  /** A completed dubbing whose save was delivered twice; answers its id. */
  async function savedTwice(): Promise<string> {
    const job = (await dub({ translationId: await completedTranslation("es") })).body.data;
    const task = await lease(job);
    const voice = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created: created() });
    for (let i = 0; i < 2; i++)
      expect((await fakeRunner.call(task, "dubbing.save", dubbingSave(job, voice.body.data.voiceId))).status).toBe(200);
    expect((await fakeRunner.complete(task, summaryOf(job))).status).toBe(200);
    await waitForStatus(t, job.jobId, "completed");
    return String(job.input["dubbingId"]);
  }

  it("keeps the saved record as one object in R2 that the dubbing row points at, a redelivered save leaving one", async () => {
    const id = await savedTwice();
    const row = await d1Row("dubbings", id);
    expect(row).toMatchObject({ status: "completed", result: null });
    expectBlobKey(row["result_key"], t.projectId, DUBBING_BLOB_KIND, id);
    expect(await ownerKeys(t.projectId, DUBBING_BLOB_KIND, id)).toEqual([row["result_key"]]);
    const { speakers, segments, sync, artifacts } = await recordOf(id);
    expect(await storedValue(String(row["result_key"]))).toMatchObject({ speakers, segments, sync, artifacts });
  });

  it("reads a record the previous version kept in D1, and moves it into R2 once, answering the same", async () => {
    const id = await savedTwice();
    const before = await recordOf(id);
    await asLegacyRow("dubbings", id, "result", "result_key");
    expect(await recordOf(id)).toEqual(before);
    expect(await moveLegacyDubbing(env, id)).toBe(true);
    expect(await moveLegacyDubbing(env, id)).toBe(false);
    expect(await d1Row("dubbings", id)).toMatchObject({ result: null });
    expect(await ownerKeys(t.projectId, DUBBING_BLOB_KIND, id)).toHaveLength(1);
    expect(await recordOf(id)).toEqual(before);
  });
});

describe("dubbing: what the runner reports is checked against the job", () => {
  /** A dubbing of a given translation, leased by the test's runner. */
  async function leasedDubbing(): Promise<{ job: Job; task: LeasedTask }> {
    const job = (await dub({ translationId: await completedTranslation("es") })).body.data;
    return { job, task: await lease(job) };
  }

  it("a save naming a file outside the job's own prefix is refused with 422", async () => {
    const { job, task } = await leasedDubbing();
    const save = dubbingSave(job, "vce_any");
    save.artifacts.video = "svc-media-results/txt_someoneelse/dubbing/dub_x/dubbed.es.mp4";
    const res = await fakeRunner.call(task, "dubbing.save", save);
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.artifacts.video", issue: "outsideJobPrefix" }]);
  });

  it("a save naming a voice the request did not assign and the job did not make is refused with 422", async () => {
    const { job, task } = await leasedDubbing();
    const unrelated = await readyVoice();
    const res = await fakeRunner.call(task, "dubbing.save", dubbingSave(job, unrelated));
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.speakers.0.voiceId", issue: `notFound:${unrelated}` }]);
  });

  it("a speaker voice whose reference clip lies outside the job's prefix is refused with 422", async () => {
    const { task } = await leasedDubbing();
    const clone = { ...created(), referenceKey: "svc-media-results/voices/vce_someoneelse/reference.wav" };
    const res = await fakeRunner.call(task, "voices.create", { label: "SPEAKER_01", created: clone });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.created.referenceKey", issue: "outsideJobPrefix" }]);
  });

  it("a result naming another dubbing is refused with 422", async () => {
    const { job, task } = await leasedDubbing();
    const res = await fakeRunner.complete(task, { ...summaryOf(job), dubbingId: "dub_someoneelse" });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.dubbingId", issue: "notTheJobs" }]);
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

  it("a voice creation result naming another voice is refused with 422", async () => {
    const res = await createVoice();
    const task = await fakeRunner.leaseWhenReady(res.job.jobId, ["voice_creation"]);
    const refused = await fakeRunner.complete(task, { voiceId: "vce_someoneelse", ...created() });
    expectError(refused, 422, "protocolError");
    expect(refused.body.error?.details).toEqual([{ path: "result.voiceId", issue: "notTheJobs" }]);
  });

  it("a voice's reference clip outside the job's prefix is refused with 422", async () => {
    const res = await createVoice();
    const task = await fakeRunner.leaseWhenReady(res.job.jobId, ["voice_creation"]);
    const clone = { ...created(), referenceKey: "svc-media-results/voices/vce_someoneelse/reference.wav" };
    const refused = await fakeRunner.complete(task, { voiceId: res.voiceId, ...clone });
    expectError(refused, 422, "protocolError");
    expect(refused.body.error?.details).toEqual([{ path: "result.referenceKey", issue: "outsideJobPrefix" }]);
  });
});
