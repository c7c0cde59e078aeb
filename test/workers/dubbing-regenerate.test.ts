import { afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { DubbingSave, PreviousDubbing } from "../../contracts/services/dubbing";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { dubbingSave } from "./helpers/results";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript } from "./helpers/transcripts";
import { presign } from "../support/presign";

/**
 * `options.regenerateFrom` through the Worker, the test playing the runner: the create checks on the
 * previous dub, what the job stores of it, `dubbing.previous`, and the save of a regenerated dub.
 */

let t: Tenant;
let other: Tenant;
let txt: string;
let previous: { dubbingId: string; voiceId: string; save: DubbingSave };
const TEXTS = ["Welcome to the show.", "Thanks for having me.", "Let us begin."];
const PROFILE = { kind: "profile", engine: "espeak-ng", language: "es", baseVoice: "es+f3" };

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  other = await createTenant({ plan: "enterprise" });
  txt = (await completedTranscript(t, TEXTS)).textSourceId;
  previous = await completedDub(t, txt);
});
afterEach(async () => {
  await cancelUnfinished(t);
});

const dub = (input: Record<string, unknown>, tenant = t) =>
  call<Job>("POST", "/v1/jobs", {
    key: tenant.projectKey,
    body: { serviceType: "dubbing", input: { transcriptionId: txt, targetLanguage: "es", ...input } },
  });

const regenerate = (from: string, input: Record<string, unknown> = {}, tenant = t) =>
  dub({ options: { regenerateFrom: from }, ...input }, tenant);

/** A dubbing job leased by the test's runner, its speaker's voice made and its record saved (not yet completed). */
async function savedDub(tenant: Tenant, transcriptionId: string, input: Record<string, unknown> = {}) {
  const job = (await dub({ transcriptionId, ...input }, tenant)).body.data;
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
  const created = { spec: PROFILE, model: "espeak-ng 1.51", referenceKey: null, sampleSpeechSec: 4.2 };
  const voice = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created });
  const save = dubbingSave(job, voice.body.data.voiceId);
  expect((await fakeRunner.call(task, "dubbing.save", save)).status).toBe(200);
  return { job, task, voiceId: voice.body.data.voiceId, save };
}

/** A completed dub of `transcriptionId` into Spanish. */
async function completedDub(tenant: Tenant, transcriptionId: string) {
  const { job, task, voiceId, save } = await savedDub(tenant, transcriptionId);
  const dubbingId = String(job.input["dubbingId"]);
  const summary = {
    dubbingId,
    transcriptionId,
    translationId: String(job.input["translationId"]),
    sourceLanguage: "en",
    targetLanguage: "es",
    languageKey: "es",
    textPreview: "Bienvenidos",
    segmentCount: 3,
    durationSec: 6,
  };
  expect((await fakeRunner.complete(task, summary)).status).toBe(200);
  await waitForStatus(tenant, job.jobId, "completed");
  return { dubbingId, voiceId, save };
}

const issueOf = (res: { body: { error?: { details?: Array<{ path: string; issue: string }> } } }) => res.body.error?.details;

describe("regenerating a dub: create", () => {
  it("stores the previous dub's artifacts and its speakers' voices for the runner, and the option on the record", async () => {
    const res = await regenerate(previous.dubbingId);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const a = previous.save.artifacts;
    expect(res.body.data.input["regenerateFrom"]).toEqual({
      dubbingId: previous.dubbingId,
      artifacts: { rawAudio: a.rawAudio, vocals: a.vocals, background: a.background, speech: a.speech },
      voices: { SPEAKER_00: { voiceId: previous.voiceId, spec: PROFILE, referenceKey: null, voiceSource: "auto_created" } },
    } satisfies PreviousDubbing);
    const record = await call<{ options: Record<string, unknown> }>("GET", `/v1/dubbings/${String(res.body.data.input["dubbingId"])}`, {
      key: t.projectKey,
    });
    expect(record.body.data.options["regenerateFrom"]).toBe(previous.dubbingId);
  });

  it("refuses a dub that is not completed, with 422 dubbingNotCompleted", async () => {
    const pending = String((await dub({})).body.data.input["dubbingId"]);
    const res = await regenerate(pending);
    expectError(res, 422, "validationError");
    expect(issueOf(res)).toEqual([{ path: "input.options.regenerateFrom", issue: "dubbingNotCompleted" }]);
  });

  it("refuses a dub of another transcript, with 422 dubbingOfOtherTranscript", async () => {
    const otherTxt = (await completedTranscript(t, TEXTS)).textSourceId;
    const res = await regenerate(previous.dubbingId, { transcriptionId: otherTxt });
    expectError(res, 422, "validationError");
    expect(issueOf(res)).toEqual([{ path: "input.options.regenerateFrom", issue: "dubbingOfOtherTranscript" }]);
  });

  it("refuses a dub into another language, with 422 dubbingLanguageMismatch", async () => {
    const res = await regenerate(previous.dubbingId, { targetLanguage: "fr" });
    expectError(res, 422, "validationError");
    expect(issueOf(res)).toEqual([{ path: "input.options.regenerateFrom", issue: "dubbingLanguageMismatch" }]);
  });

  it("another project's dub is not found, as every id a create names", async () => {
    const otherTxt = (await completedTranscript(other, TEXTS)).textSourceId;
    const res = await regenerate(previous.dubbingId, { transcriptionId: otherTxt }, other);
    expectError(res, 404, "notFound");
    expect(issueOf(res)).toEqual([{ path: "input.options.regenerateFrom", issue: `notFound:${previous.dubbingId}` }]);
    await cancelUnfinished(other);
  });

  it("refuses on an s3_presigned job, which has no bucket to read the previous dub from, with 422 regenerateNeedsBucket", async () => {
    const url = (method: "GET" | "PUT", key: string) => presign(inject("s3"), method, "media-test", key);
    const names = ["rawAudio", "vocals", "background", "speech", "mix", "video", "srt", "vtt"];
    const outputUrls = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await url("PUT", `regen/${n}`)] as const)));
    const res = await regenerate(previous.dubbingId, {
      sourceType: "s3_presigned",
      sourceUrl: await url("GET", "regen/talk.mp4"),
      outputUrls,
    });
    expectError(res, 422, "validationError");
    expect(issueOf(res)).toEqual([{ path: "input.options.regenerateFrom", issue: "regenerateNeedsBucket" }]);
  });

  it("an id that is not a dub's is refused by the request's schema", async () => {
    expectError(await regenerate("trl_notadub"), 422, "validationError");
  });

  it("leaves out a speaker's voice deleted since: that speaker gets a voice as any dub's would", async () => {
    const own = await completedDub(t, txt);
    expect((await call("DELETE", `/v1/voices/${own.voiceId}`, { key: t.projectKey })).status).toBe(200);
    const res = await regenerate(own.dubbingId);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((res.body.data.input["regenerateFrom"] as PreviousDubbing).voices).toEqual({});
  });
});

describe("regenerating a dub: the runner's calls", () => {
  it("dubbing.previous answers the previous dub's saved record", async () => {
    const job = (await regenerate(previous.dubbingId)).body.data;
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
    const res = await fakeRunner.call<{ record: DubbingSave }>(task, "dubbing.previous", {});
    expect(res.body.data.record).toEqual(previous.save);
  });

  it("a save speaking with the previous dub's voice is accepted, and the record shows what was regenerated", async () => {
    const job = (await regenerate(previous.dubbingId)).body.data;
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
    const regenerated = {
      fromDubbingId: previous.dubbingId,
      mode: "partial" as const,
      reused: { sourceAudio: true, separation: true, diarization: true, voices: ["SPEAKER_00"] },
      segmentsSynthesized: [1],
      segmentsReused: [0, 2],
    };
    const res = await fakeRunner.call(task, "dubbing.save", dubbingSave(job, previous.voiceId, { regenerated }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const record = await call<{ regenerated: unknown }>("GET", `/v1/dubbings/${String(job.input["dubbingId"])}`, { key: t.projectKey });
    expect(record.body.data.regenerated).toEqual(regenerated);
  });
});
