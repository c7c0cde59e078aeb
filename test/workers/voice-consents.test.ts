import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { PHRASE_WORD_COUNT, PHRASE_WORDS } from "../../contracts/voice-consent";
import { getDb } from "../../worker/db/client";
import { consentPhrases } from "../../worker/db/schema";
import { call, expectError, type ApiResponse } from "./helpers/api";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createConnection, createTenant, projectKey, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, diarizedTranscript, usage } from "./helpers/transcripts";

/**
 * Consents to clone a voice (issue 25; docs/api.md "Consent for cloned voices"), through the Worker
 * with the test playing the runner: attestations, phrases, recorded consents and their check job,
 * revocation, and what a dubbing or a voice stores of them for the runner under the project's
 * `voiceCloning.requireConsent`.
 */

let t: Tenant;
/** A tenant whose project never set the policy. */
let off: Tenant;
let txt: string;
const SPEAKERS = ["SPEAKER_00", "SPEAKER_01", "SPEAKER_00"];

interface Consent {
  consentId: string;
  kind: string;
  status: string;
  subject: Record<string, unknown>;
  statement: string | null;
  createdBy: { kind: string; id: string; label: string };
  jobId: string | null;
  check: Record<string, unknown> | null;
  reason: string | null;
  createdAt: string;
  revokedAt: string | null;
}
interface Phrase {
  phraseId: string;
  text: string;
  words: string[];
  createdAt: string;
  expiresAt: string;
}

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  off = await createTenant({ plan: "enterprise" });
  const policy = await call("PATCH", `/v1/projects/${t.projectId}`, {
    key: t.workspaceKey,
    body: { dataPolicy: { voiceCloning: { requireConsent: true } } },
  });
  expect(policy.status, JSON.stringify(policy.body)).toBe(200);
  txt = (await diarizedTranscript(t, SPEAKERS)).textSourceId;
});
afterEach(async () => {
  await cancelUnfinished(t);
  await cancelUnfinished(off);
});

const speaker = (label: string, transcriptionId = txt) => ({ transcriptionId, speakerLabel: label });
const STATEMENT = "Ana Ruiz agreed in writing on 3 May to her voice being cloned for the Spanish dub.";

const consent = (body: unknown, tenant = t) =>
  call<Consent & { job?: Job }>("POST", "/v1/voice-consents", { key: tenant.projectKey, body });
const attest = (label: string, tenant = t, transcriptionId = txt) =>
  consent({ kind: "attestation", subject: speaker(label, transcriptionId), statement: STATEMENT }, tenant);
const phrase = (tenant = t) =>
  call<Phrase>("POST", "/v1/voice-consents/phrases", { key: tenant.projectKey, body: { speakerName: "Ana Ruiz" } });

async function sourceOf(transcriptionId = txt, tenant = t) {
  const res = await call<{ source: { connectionId: string; bucket: string; sourceKey: string } }>(
    "GET",
    `/v1/transcriptions/${transcriptionId}?layers=segments`,
    { key: tenant.projectKey },
  );
  return res.body.data.source;
}

/** A recording of the phrase in the subject's bucket, and a recorded consent with it. */
async function recorded(label = "SPEAKER_00", phraseId?: string): Promise<ApiResponse<Consent & { job?: Job }>> {
  const id = phraseId ?? (await phrase()).body.data.phraseId;
  const key = await putSource(`${unique("consent")}/ana.wav`);
  return consent({
    kind: "recording",
    subject: speaker(label),
    phraseId: id,
    recording: { connectionId: t.connectionId, bucket: t.bucket, key },
  });
}

describe("attestations", () => {
  it("an attestation is granted at once, kept with who made it, when, and its statement", async () => {
    const res = await attest("SPEAKER_01");
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      consentId: expect.stringMatching(/^vcn_/),
      kind: "attestation",
      status: "granted",
      subject: speaker("SPEAKER_01"),
      statement: STATEMENT,
      createdBy: { kind: "api_key", id: t.projectKeyId, label: expect.any(String) },
      jobId: null,
    });
    const read = await call<Consent>("GET", `/v1/voice-consents/${res.body.data.consentId}`, { key: t.projectKey });
    expect(read.body.data).toEqual(res.body.data);
  });

  it("an attestation about another project's transcript is not found", async () => {
    expectError(await attest("SPEAKER_00", off), 404, "notFound");
  });

  it("a statement longer than 2000 characters is refused", async () => {
    const res = await consent({ kind: "attestation", subject: speaker("SPEAKER_00"), statement: "x".repeat(2001) });
    expectError(res, 422, "validationError");
  });
});

describe("phrases", () => {
  it("a phrase is the speaker's name, a fixed sentence and six words of the fixed list, valid for 24 hours", async () => {
    const res = await phrase();
    expect(res.status).toBe(201);
    const p = res.body.data;
    expect(p.phraseId).toMatch(/^vcp_/);
    expect(p.words).toHaveLength(PHRASE_WORD_COUNT);
    for (const w of p.words) expect(PHRASE_WORDS).toContain(w);
    expect(p.text).toBe(`My name is Ana Ruiz. I agree to a synthetic copy of my voice. ${p.words.join(", ")}.`);
    expect(Date.parse(p.expiresAt) - Date.parse(p.createdAt)).toBe(24 * 60 * 60 * 1000);
  });
});

describe("recorded consents", () => {
  it("a recording makes a pending consent and its voice_consent job, and charges nothing", async () => {
    const before = await usage(t);
    const res = await recorded();
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data).toMatchObject({ kind: "recording", status: "pending", subject: speaker("SPEAKER_00") });
    expect(res.body.data.job).toMatchObject({ serviceType: "voice_consent", status: expect.any(String) });
    expect(await usage(t)).toEqual(before);
  });

  it("a phrase is read once: a second consent with it is refused with phraseUsed", async () => {
    const { phraseId } = (await phrase()).body.data;
    expect((await recorded("SPEAKER_00", phraseId)).status).toBe(202);
    const again = await recorded("SPEAKER_00", phraseId);
    expectError(again, 422, "validationError");
    expect(again.body.error?.details).toEqual([{ path: "input.phraseId", issue: "phraseUsed" }]);
  });

  it("an expired phrase is refused with phraseExpired", async () => {
    const { phraseId } = (await phrase()).body.data;
    await getDb(env.DB).update(consentPhrases).set({ expiresAt: "2020-01-01T00:00:00.000Z" }).where(eq(consentPhrases.id, phraseId));
    const res = await recorded("SPEAKER_00", phraseId);
    expect(res.body.error?.details).toEqual([{ path: "input.phraseId", issue: "phraseExpired" }]);
  });

  it("another project's phrase is not found", async () => {
    const { phraseId } = (await phrase(off)).body.data;
    expectError(await recorded("SPEAKER_00", phraseId), 404, "notFound");
  });

  it("a speaker the transcript does not have is refused with speakerNotFound", async () => {
    const res = await recorded("SPEAKER_07");
    expect(res.body.error?.details).toEqual([{ path: "input.subject.speakerLabel", issue: "speakerNotFound" }]);
  });

  it("the recording must be read through the subject's connection and bucket", async () => {
    const otherConnection = await createConnection(t.projectKey);
    const { phraseId } = (await phrase()).body.data;
    const key = await putSource(`${unique("consent")}/ana.wav`);
    const res = await consent({
      kind: "recording",
      subject: speaker("SPEAKER_00"),
      phraseId,
      recording: { connectionId: otherConnection, bucket: t.bucket, key },
    });
    expect(res.body.error?.details).toEqual([{ path: "input.recording", issue: "recordingBucketMismatch" }]);
  });

  it("the runner is handed the phrase, the thresholds and the subject speaker's turns in the source", async () => {
    const res = await recorded("SPEAKER_01");
    const task = await fakeRunner.leaseWhenReady(res.body.data.job!.jobId, ["voice_consent"]);
    const source = await sourceOf();
    expect(task.input).toMatchObject({
      consentId: res.body.data.consentId,
      phrase: { words: expect.any(Array), speakerName: "Ana Ruiz" },
      subject: { kind: "speaker", speakerLabel: "SPEAKER_01", sourceKey: source.sourceKey, turns: [expect.any(Object)] },
      thresholds: { minWordRecall: 0.7, maxVoiceDistance: 1.2 },
    });
    await fakeRunner.release(task);
  });

  it("the runner's decision completes the consent, with what it measured", async () => {
    const res = await recorded();
    const job = res.body.data.job!;
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["voice_consent"]);
    const check = {
      heard: "my name is ana ruiz garden falcon",
      wordRecall: 1,
      missingWords: [],
      voiceDistance: 0.73,
      recordingF0Hz: 120,
      subjectF0Hz: 118,
      speechEngine: { engine: "local-pocketsphinx", model: "en-us" },
      thresholds: { minWordRecall: 0.7, maxVoiceDistance: 1.2 },
    };
    const done = await fakeRunner.complete(task, {
      consentId: res.body.data.consentId,
      decision: "granted",
      reason: "phrase heard",
      check,
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    await waitForStatus(t, job.jobId, "completed");
    const read = await call<Consent>("GET", `/v1/voice-consents/${res.body.data.consentId}`, { key: t.projectKey });
    expect(read.body.data).toMatchObject({ status: "granted", check, reason: "phrase heard" });
  });

  it("a check that fails refuses the consent, saying so", async () => {
    const res = await recorded();
    const task = await fakeRunner.leaseWhenReady(res.body.data.job!.jobId, ["voice_consent"]);
    await fakeRunner.fail(task, "source_not_found", false, "the recording is gone");
    await waitForStatus(t, res.body.data.job!.jobId, "failed");
    const read = await call<Consent>("GET", `/v1/voice-consents/${res.body.data.consentId}`, { key: t.projectKey });
    expect(read.body.data).toMatchObject({ status: "refused", reason: "the check did not complete (job failed)" });
  });

  it("POST /v1/jobs with voice_consent needs voice_consent:write as well as job:create", async () => {
    const key = await projectKey(t, ["job:create"]);
    const { phraseId } = (await phrase()).body.data;
    const res = await call("POST", "/v1/jobs", {
      key: key.secret,
      body: {
        serviceType: "voice_consent",
        input: {
          kind: "recording",
          subject: speaker("SPEAKER_00"),
          phraseId,
          recording: { connectionId: t.connectionId, bucket: t.bucket, key: "a.wav" },
        },
      },
    });
    expectError(res, 403, "forbidden");
    expect(res.body.error?.details).toEqual([{ path: "authorization", issue: "missingPermission:voice_consent:write" }]);
  });
});

/** The consents a dubbing of `transcriptionId` stores for its runner. */
async function dubbingConsents(tenant: Tenant, transcriptionId: string) {
  const res = await call<Job>("POST", "/v1/jobs", {
    key: tenant.projectKey,
    body: { serviceType: "dubbing", input: { transcriptionId, targetLanguage: "es" } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { job: res.body.data, voiceConsent: res.body.data.input["voiceConsent"] };
}

describe("dubbing under voiceCloning.requireConsent", () => {
  it("stores the granted consents of the transcript's speakers for the runner, and only those", async () => {
    const own = (await diarizedTranscript(t, SPEAKERS)).textSourceId;
    const granted = (await attest("SPEAKER_01", t, own)).body.data;
    const { voiceConsent } = await dubbingConsents(t, own);
    expect(voiceConsent).toEqual({ required: true, granted: { SPEAKER_01: { consentId: granted.consentId, kind: "attestation" } } });
  });

  it("a revoked consent is not found by a later dubbing", async () => {
    const own = (await diarizedTranscript(t, SPEAKERS)).textSourceId;
    const granted = (await attest("SPEAKER_00", t, own)).body.data;
    const revoked = await call<Consent>("DELETE", `/v1/voice-consents/${granted.consentId}`, { key: t.projectKey });
    expect(revoked.body.data).toMatchObject({ status: "revoked", revokedAt: expect.any(String) });
    expect((await dubbingConsents(t, own)).voiceConsent).toEqual({ required: true, granted: {} });
  });

  it("a pending or refused recorded consent does not count", async () => {
    const pending = await recorded("SPEAKER_01");
    expect(pending.body.data.status).toBe("pending");
    const { voiceConsent } = await dubbingConsents(t, txt);
    expect(
      Object.values((voiceConsent as { granted: Record<string, { consentId: string }> }).granted).map((c) => c.consentId),
    ).not.toContain(pending.body.data.consentId);
  });

  it("with the policy off a dubbing stores that no consent is required", async () => {
    const own = (await completedTranscript(off, ["Hello there.", "Welcome."])).textSourceId;
    expect((await dubbingConsents(off, own)).voiceConsent).toEqual({ required: false, granted: {} });
  });

  it("voices.create refuses a clone for a speaker without a granted consent", async () => {
    const own = (await diarizedTranscript(t, SPEAKERS)).textSourceId;
    const { job } = await dubbingConsents(t, own);
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
    const clone = {
      spec: { kind: "clone", engine: "replicate", model: "lucataco/xtts-v2", language: "es" },
      model: "lucataco/xtts-v2",
      referenceKey: null,
      sampleSpeechSec: 4,
    };
    const res = await fakeRunner.call(task, "voices.create", { label: "SPEAKER_00", created: clone });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.created.spec.kind", issue: "cloneWithoutConsent" }]);
  });

  it("a profile made for want of consent is saved with its reason", async () => {
    const own = (await diarizedTranscript(t, SPEAKERS)).textSourceId;
    const { job } = await dubbingConsents(t, own);
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["dubbing"]);
    const reason = "no consent for SPEAKER_00 (voiceCloning.requireConsent): a voice profile, not a clone";
    const profile = {
      spec: { kind: "profile", engine: "espeak-ng", language: "es", baseVoice: "es+f3" },
      model: "espeak-ng 1.51",
      referenceKey: null,
      sampleSpeechSec: 4,
      reason,
      consent: null,
    };
    const res = await fakeRunner.call<{ voiceId: string }>(task, "voices.create", { label: "SPEAKER_00", created: profile });
    const voice = await call("GET", `/v1/voices/${res.body.data.voiceId}`, { key: t.projectKey });
    expect(voice.body.data).toMatchObject({ kind: "profile", reason, consent: null });
  });
});

describe("POST /v1/voices under voiceCloning.requireConsent", () => {
  const createVoice = async (key: string) => {
    const source = await sourceOf();
    const res = await call<{ job: Job }>("POST", "/v1/voices", {
      key: t.projectKey,
      body: { name: "Ana", connectionId: source.connectionId, bucket: source.bucket, sourceKey: key, language: "es" },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return res.body.data.job.input["voiceConsent"];
  };

  it("stores the sample's granted consent for the runner", async () => {
    const key = await putSource(`${unique("sample")}/ana.wav`);
    const source = await sourceOf();
    const granted = await consent({
      kind: "attestation",
      subject: { connectionId: source.connectionId, bucket: source.bucket, key },
      statement: STATEMENT,
    });
    expect(granted.status).toBe(201);
    expect(await createVoice(key)).toEqual({
      required: true,
      granted: { sample: { consentId: granted.body.data.consentId, kind: "attestation" } },
    });
  });

  it("without one, stores that a clone is not allowed", async () => {
    expect(await createVoice(await putSource(`${unique("sample")}/ana.wav`))).toEqual({ required: true, granted: {} });
  });
});

describe("listing", () => {
  it("lists the project's consents newest first, by status and by transcript", async () => {
    const a = (await attest("SPEAKER_00")).body.data;
    const list = await call<Consent[]>("GET", `/v1/voice-consents?status=granted&transcriptionId=${txt}`, { key: t.projectKey });
    expect(list.body.data[0]?.consentId).toBe(a.consentId);
    expect(list.body.data.every((c) => c.status === "granted" && c.subject["transcriptionId"] === txt)).toBe(true);
    const others = await call<Consent[]>("GET", "/v1/voice-consents", { key: off.projectKey });
    expect(others.body.data.map((c) => c.consentId)).not.toContain(a.consentId);
  });
});
