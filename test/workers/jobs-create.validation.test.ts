import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { SERVICE_TYPES, type ServiceType } from "../../contracts/service-types";
import { call } from "./helpers/api";
import { cancelUnfinished, submitTranscription } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createConnection, createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";

/**
 * POST /v1/jobs validation: one case per rule of the spec's create tables, for all eight service
 * types. Every case asserts the status, `error.code`, the exact `details[]`, and that the
 * rejected request consumed no credits. The real `transcription` pipeline is used (no test
 * pipeline is registered in this file) so completed transcripts come from the real result sink.
 */

interface Fixtures {
  /** Free-plan tenant every case runs as unless it names another. */
  t: Tenant;
  ent: Tenant;
  other: Tenant;
  sourceKey: string;
  /** Completed transcript with segments, and the job that produced it. */
  txt: string;
  txtJobId: string;
  /** Completed transcript without segments, and its job. */
  emptyTxt: string;
  emptyJobId: string;
  /** Transcript whose transcription job is still queued. */
  queuedTxt: string;
  entTxt: string;
  otherTxt: string;
  otherConnectionId: string;
  inactiveConnectionId: string;
}
const f = {} as Fixtures;

beforeAll(async () => {
  [f.t, f.ent, f.other] = await Promise.all([createTenant({ plan: "free" }), createTenant({ plan: "enterprise" }), createTenant()]);
  f.sourceKey = await putSource(`${unique("val")}/interview.mp4`);
  // One at a time: each helper leases the oldest transcription task and checks it is its own.
  ({ textSourceId: f.txt, jobId: f.txtJobId } = await completedTranscript(f.t, 3));
  ({ textSourceId: f.emptyTxt, jobId: f.emptyJobId } = await completedTranscript(f.t, 0));
  f.entTxt = (await completedTranscript(f.ent, 3)).textSourceId;
  f.otherTxt = (await completedTranscript(f.other, 3)).textSourceId;
  f.queuedTxt = String((await submitTranscription(f.t)).input["textSourceId"]);
  f.otherConnectionId = f.other.connectionId;
  f.inactiveConnectionId = await createConnection(f.t.projectKey);
  const off = await call("POST", `/v1/storage-connections/${f.inactiveConnectionId}/deactivate`, { key: f.t.projectKey });
  if (off.status !== 200) throw new Error(`deactivate failed: ${JSON.stringify(off.body)}`);
}, 60_000);
afterAll(() => cancelUnfinished(f.t));

/** A valid input per service type, referencing the fixtures. */
function validInput(serviceType: ServiceType): Record<string, unknown> {
  switch (serviceType) {
    case "transcription":
      return { sourceType: "s3_direct", connectionId: f.t.connectionId, bucket: f.t.bucket, sourceKey: f.sourceKey };
    case "translation":
      return { textSourceId: f.txt, targetLanguage: "es" };
    case "dubbing":
      return { transcriptionId: f.txt, targetLanguage: "es" };
    case "voice_creation":
      return { name: "Narrator", connectionId: f.t.connectionId, bucket: f.t.bucket, sourceKey: f.sourceKey, language: "es" };
    case "voice_consent":
      return {
        kind: "recording",
        subject: { transcriptionId: f.txt, speakerLabel: "SPEAKER_00" },
        phraseId: "vcp_unknown",
        recording: { connectionId: f.t.connectionId, bucket: f.t.bucket, key: f.sourceKey },
      };
    case "indexer":
      return { textSourceIds: [f.txt] };
    case "metadata":
      return { textSourceId: f.txt };
    case "summarization":
      return { textSourceJobId: f.txt };
    case "clip_generation":
      return { textSourceId: f.txt };
    case "thumbnail":
      return { textSourceId: f.txt };
    case "transcript_files":
      return { textSourceId: f.txt };
  }
}

/** A create body: the valid input with `input` overrides (undefined removes a field) and top-level extras. */
function body(serviceType: ServiceType, input: Record<string, unknown> = {}, top: Record<string, unknown> = {}) {
  return { serviceType, input: { ...validInput(serviceType), ...input }, ...top };
}

type Detail = { path: string; issue: string };
interface Rejection {
  status: number;
  code: string;
  details: Detail[];
  message?: string;
}

const invalid = (path: string, issue: string, message?: string): Rejection => ({
  status: 422,
  code: "validationError",
  details: [{ path, issue }],
  ...(message ? { message } : {}),
});
const notFound = (path: string, issue: string, message: string): Rejection => ({
  status: 404,
  code: "notFound",
  details: [{ path, issue }],
  message,
});

/** Posts the body and checks the rejection exactly, and that the workspace's usage did not move. */
async function expectRejected(tenant: Tenant, requestBody: unknown, expected: Rejection) {
  const before = await usage(tenant);
  const res = await call<null>("POST", "/v1/jobs", { key: tenant.projectKey, body: requestBody });
  expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
  expect(res.body.data).toBeNull();
  expect(res.body.error?.code).toBe(expected.code);
  expect(res.body.error?.details).toEqual(expected.details);
  if (expected.message !== undefined) expect(res.body.error?.message).toBe(expected.message);
  expect(await usage(tenant)).toEqual(before);
  return res;
}

interface Case {
  rule: string;
  body: () => unknown;
  expected: () => Rejection;
  tenant?: () => Tenant;
}
const run = async (c: Case) => {
  await expectRejected(c.tenant?.() ?? f.t, c.body(), c.expected());
};

describe("POST /v1/jobs: envelope fields, every service type", () => {
  it.each([...SERVICE_TYPES])("%s: priority must not be sent (the plan sets it)", async (serviceType) => {
    await expectRejected(f.t, body(serviceType, {}, { priority: "high" }), invalid("priority", "notAllowed"));
  });

  it.each<Case>([
    {
      rule: "serviceType is required",
      body: () => ({ input: validInput("metadata") }),
      expected: () => invalid("serviceType", "required"),
    },
    {
      rule: "an unknown serviceType is rejected",
      body: () => ({ serviceType: "subtitles", input: {} }),
      expected: () => invalid("serviceType", "invalidValue"),
    },
    { rule: "input is required", body: () => ({ serviceType: "metadata" }), expected: () => invalid("input", "required") },
    { rule: "a body that is not an object is rejected", body: () => ["metadata"], expected: () => invalid("", "invalidType") },
    {
      rule: "unknown top-level fields are rejected",
      body: () => body("metadata", {}, { model: "gpt-x" }),
      expected: () => invalid("model", "notAllowed"),
    },
    {
      rule: "customerJobRef is at most 120 characters",
      body: () => body("metadata", {}, { userMetadata: { customerJobRef: "a".repeat(121) } }),
      expected: () => invalid("userMetadata.customerJobRef", "tooBig"),
    },
    {
      rule: "customerJobRef allows only letters, digits, hyphen and underscore",
      body: () => body("metadata", {}, { userMetadata: { customerJobRef: "order #42" } }),
      expected: () => invalid("userMetadata.customerJobRef", "invalidFormat"),
    },
    {
      rule: "webhookUrl must be https",
      body: () => body("metadata", {}, { webhookUrl: "http://hooks.example.com/media" }),
      expected: () => invalid("webhookUrl", "httpsRequired"),
    },
    {
      rule: "webhookUrl must be an absolute URL",
      body: () => body("metadata", {}, { webhookUrl: "ftp://hooks.example.com" }),
      expected: () => invalid("webhookUrl", "invalidFormat"),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: transcription", () => {
  it.each(["sourceType", "connectionId", "bucket", "sourceKey"])("input.%s is required", async (field) => {
    await expectRejected(f.t, body("transcription", { [field]: undefined }), invalid(`input.${field}`, "required"));
  });

  it.each<Case>([
    {
      rule: "sourceType must be s3_direct or s3_presigned",
      body: () => body("transcription", { sourceType: "upload" }),
      expected: () => invalid("input.sourceType", "invalidValue"),
    },
    {
      rule: "outputPrefix must not start with a slash",
      body: () => body("transcription", { outputPrefix: "/exports/run-1/" }),
      expected: () => invalid("input.outputPrefix", "leadingSlash"),
    },
    {
      rule: "outputPrefix must not contain `..` segments",
      body: () => body("transcription", { outputPrefix: "exports/../secrets/" }),
      expected: () => invalid("input.outputPrefix", "dotDotSegment"),
    },
    {
      rule: "options.preprocessing must not be sent",
      body: () => body("transcription", { options: { preprocessing: { denoise: false } } }),
      expected: () => invalid("input.options.preprocessing", "notAllowed"),
    },
    {
      rule: "model options must not be sent",
      body: () => body("transcription", { options: { model: "whisper-large" } }),
      expected: () => invalid("input.options.model", "notAllowed"),
    },
    {
      rule: "options.language must be a language code, not a display name",
      body: () => body("transcription", { options: { language: "English" } }),
      expected: () => invalid("input.options.language", "invalidFormat"),
    },
    {
      rule: "options.language must be a platform-supported source language",
      body: () => body("transcription", { options: { language: "fr" } }),
      expected: () => invalid("input.options.language", "unsupportedLanguage"),
    },
    {
      rule: "sourceKey must have a supported video extension",
      body: () => body("transcription", { sourceKey: "notes/readme.txt" }),
      expected: () => invalid("input.sourceKey", "unsupportedExtension"),
    },
    {
      rule: "a connection of another project is not found",
      body: () => body("transcription", { connectionId: f.otherConnectionId }),
      expected: () =>
        notFound("input.connectionId", `notFound:${f.otherConnectionId}`, `storage connection not found: ${f.otherConnectionId}`),
    },
    {
      rule: "the connection must be active",
      body: () => body("transcription", { connectionId: f.inactiveConnectionId }),
      expected: () => invalid("input.connectionId", "connectionInactive"),
    },
    {
      rule: "the bucket must be in the connection's buckets",
      body: () => body("transcription", { bucket: "media-other" }),
      expected: () => invalid("input.bucket", "bucketNotAllowed"),
    },
    {
      rule: "the source object must exist (ranged GET probe)",
      body: () => body("transcription", { sourceKey: `${unique("missing")}/gone.mp4` }),
      expected: () => invalid("input.sourceKey", "sourceNotFound"),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: indexer", () => {
  const path = "input.textSourceIds";
  it.each<Case>([
    {
      rule: "textSourceIds needs at least one id",
      body: () => body("indexer", { textSourceIds: [] }),
      expected: () => invalid(path, "tooSmall"),
    },
    {
      rule: "textSourceIds takes at most 50 ids",
      body: () => body("indexer", { textSourceIds: Array.from({ length: 51 }, (_, i) => `txt_many${i}`) }),
      expected: () => invalid(path, "tooBig"),
    },
    {
      rule: "textSourceIds must be txt_ ids",
      body: () => body("indexer", { textSourceIds: ["job_abc"] }),
      expected: () => invalid(`${path}.0`, "invalidFormat"),
    },
    {
      rule: "an unknown id is not found",
      body: () => body("indexer", { textSourceIds: [f.txt, "txt_unknown0001"] }),
      expected: () => notFound(path, "notFound:txt_unknown0001", "transcription not found: txt_unknown0001"),
    },
    {
      rule: "another project's transcript is not found",
      body: () => body("indexer", { textSourceIds: [f.otherTxt] }),
      expected: () => notFound(path, `notFound:${f.otherTxt}`, `transcription not found: ${f.otherTxt}`),
    },
    {
      rule: "a transcript without segments is rejected",
      body: () => body("indexer", { textSourceIds: [f.emptyTxt] }),
      expected: () => invalid(path, `noSegments:${f.emptyTxt}`, `transcription ${f.emptyTxt} has no segments`),
    },
    {
      rule: "a transcript whose transcription has not completed has no segments yet",
      body: () => body("indexer", { textSourceIds: [f.queuedTxt] }),
      expected: () => invalid(path, `noSegments:${f.queuedTxt}`, `transcription ${f.queuedTxt} has no segments`),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: metadata", () => {
  const path = "input.textSourceId";
  it.each<Case>([
    {
      rule: "textSourceId is required",
      body: () => body("metadata", { textSourceId: undefined }),
      expected: () => invalid(path, "required"),
    },
    {
      rule: "model options must not be sent",
      body: () => body("metadata", { model: "gpt-x" }),
      expected: () => invalid("input.model", "notAllowed"),
    },
    {
      rule: "an unknown id is not found",
      body: () => body("metadata", { textSourceId: "txt_unknown0002" }),
      expected: () => notFound(path, "notFound:txt_unknown0002", "transcription not found: txt_unknown0002"),
    },
    {
      rule: "another project's transcript is not found",
      body: () => body("metadata", { textSourceId: f.otherTxt }),
      expected: () => notFound(path, `notFound:${f.otherTxt}`, `transcription not found: ${f.otherTxt}`),
    },
    {
      rule: "a transcript without segments is rejected",
      body: () => body("metadata", { textSourceId: f.emptyTxt }),
      expected: () => invalid(path, `noSegments:${f.emptyTxt}`, `transcription ${f.emptyTxt} has no segments`),
    },
    {
      rule: "a transcript whose transcription has not completed has no segments yet",
      body: () => body("metadata", { textSourceId: f.queuedTxt }),
      expected: () => invalid(path, `noSegments:${f.queuedTxt}`, `transcription ${f.queuedTxt} has no segments`),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: summarization", () => {
  const path = "textSourceJobId";
  it.each<Case>([
    {
      rule: "textSourceJobId is required",
      body: () => body("summarization", { textSourceJobId: undefined }),
      expected: () => invalid(path, "required"),
    },
    {
      rule: "textSourceJobId must not be empty",
      body: () => body("summarization", { textSourceJobId: "" }),
      expected: () => invalid(path, "tooSmall"),
    },
    {
      rule: "textSourceJobId must be a job_ or txt_ id",
      body: () => body("summarization", { textSourceJobId: "clp_123" }),
      expected: () => invalid(path, "invalidFormat"),
    },
    {
      rule: "model options must not be sent",
      body: () => body("summarization", { model: "gpt-x" }),
      expected: () => invalid("input.model", "notAllowed"),
    },
    {
      rule: "an unknown txt_ id is not found",
      body: () => body("summarization", { textSourceJobId: "txt_unknown0003" }),
      expected: () => notFound(path, "notFound", "transcription not found: txt_unknown0003"),
    },
    {
      rule: "an unknown job_ id is not found",
      body: () => body("summarization", { textSourceJobId: "job_unknown0003" }),
      expected: () => notFound(path, "notFound", "transcription not found for job: job_unknown0003"),
    },
    {
      rule: "another project's transcript is not found",
      body: () => body("summarization", { textSourceJobId: f.otherTxt }),
      expected: () => notFound(path, "notFound", `transcription not found: ${f.otherTxt}`),
    },
    {
      rule: "a txt_ without segments is rejected",
      body: () => body("summarization", { textSourceJobId: f.emptyTxt }),
      expected: () => invalid(path, "noSegments", `transcription ${f.emptyTxt} has no segments`),
    },
    {
      rule: "a job_ whose transcript has no segments is rejected",
      body: () => body("summarization", { textSourceJobId: f.emptyJobId }),
      expected: () => invalid(path, "noSegments", `transcription ${f.emptyTxt} has no segments`),
    },
  ])("$rule", run);
});

describe.each(["clip_generation", "thumbnail"] as const)("POST /v1/jobs: %s references", (serviceType) => {
  const path = "input.textSourceId";
  it.each<Case>([
    {
      rule: "textSourceId is required",
      body: () => body(serviceType, { textSourceId: undefined }),
      expected: () => invalid(path, "required"),
    },
    {
      rule: "an unknown id is not found",
      body: () => body(serviceType, { textSourceId: "txt_unknown0004" }),
      expected: () => notFound(path, "notFound:txt_unknown0004", "transcription not found: txt_unknown0004"),
    },
    {
      rule: "another project's transcript is not found",
      body: () => body(serviceType, { textSourceId: f.otherTxt }),
      expected: () => notFound(path, `notFound:${f.otherTxt}`, `transcription not found: ${f.otherTxt}`),
    },
    {
      rule: "a transcript without segments is rejected",
      body: () => body(serviceType, { textSourceId: f.emptyTxt }),
      expected: () => invalid(path, "emptySegments", "transcription has no segments"),
    },
    {
      rule: "the transcription job must be completed",
      body: () => body(serviceType, { textSourceId: f.queuedTxt }),
      expected: () => invalid(path, "jobNotCompleted"),
    },
    {
      rule: "sourceType must be s3_direct",
      body: () => body(serviceType, { sourceType: "upload" }),
      expected: () => invalid("input.sourceType", "invalidValue"),
    },
    {
      rule: "outputPrefix must not start with a slash",
      body: () => body(serviceType, { outputPrefix: "/out/" }),
      expected: () => invalid("input.outputPrefix", "leadingSlash"),
    },
    {
      rule: "an explicit connection of another project is not found",
      body: () => body(serviceType, { connectionId: f.otherConnectionId, bucket: f.t.bucket }),
      expected: () =>
        notFound("input.connectionId", `notFound:${f.otherConnectionId}`, `storage connection not found: ${f.otherConnectionId}`),
    },
    {
      rule: "an explicit bucket must be in the connection's buckets",
      body: () => body(serviceType, { connectionId: f.t.connectionId, bucket: "media-other" }),
      expected: () => invalid("input.bucket", "bucketNotAllowed"),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: clip_generation options", () => {
  const option = (options: Record<string, unknown>) => body("clip_generation", { options });
  it.each<Case>([
    {
      rule: "options.analysis must not be sent",
      body: () => option({ analysis: { vision: false } }),
      expected: () => invalid("input.options.analysis", "notAllowed"),
    },
    {
      rule: "model options must not be sent",
      body: () => option({ model: "clipper-2" }),
      expected: () => invalid("input.options.model", "notAllowed"),
    },
    {
      rule: "layout must be one of the four layouts",
      body: () => option({ layout: "diagonal_2_1" }),
      expected: () => invalid("input.options.layout", "invalidValue"),
    },
    {
      rule: "fillStyle must be black, blur or branding",
      body: () => option({ fillStyle: "neon" }),
      expected: () => invalid("input.options.fillStyle", "invalidValue"),
    },
    {
      rule: "maxClips is a positive integer",
      body: () => option({ maxClips: 0 }),
      expected: () => invalid("input.options.maxClips", "tooSmall"),
    },
    {
      rule: "categoryOverride must be a supported category",
      body: () => option({ categoryOverride: "cooking" }),
      expected: () => invalid("input.options.categoryOverride", "unsupportedCategory"),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: thumbnail options", () => {
  const option = (options: Record<string, unknown>, tenant?: () => Tenant) => ({
    body: () => body("thumbnail", { options, ...(tenant ? { textSourceId: f.entTxt } : {}) }),
    ...(tenant ? { tenant } : {}),
  });
  const sizeError = invalid("input.options", "invalidRatioResolution");
  it.each<Case>([
    {
      rule: "thumbnailCount above 3 is rejected",
      ...option({ thumbnailCount: 4 }),
      expected: () => invalid("input.options.thumbnailCount", "tooBig"),
    },
    {
      rule: "thumbnailCount below 1 is rejected",
      ...option({ thumbnailCount: 0 }),
      expected: () => invalid("input.options.thumbnailCount", "tooSmall"),
    },
    {
      rule: "nonAiThumbnailCount above 5 is rejected",
      ...option({ nonAiThumbnailCount: 6 }),
      expected: () => invalid("input.options.nonAiThumbnailCount", "tooBig"),
    },
    {
      rule: "ratio without resolution is rejected",
      ...option({ ratioWidth: 16, ratioHeight: 9 }),
      expected: () => invalid("input.options", "ratioIncomplete"),
    },
    {
      rule: "resolution without ratio is rejected",
      ...option({ resolution: 1024 }),
      expected: () => invalid("input.options", "ratioIncomplete"),
    },
    {
      rule: "pipeline tuning (imageQuality) must not be sent",
      ...option({ imageQuality: "high" }),
      expected: () => invalid("input.options.imageQuality", "notAllowed"),
    },
    {
      rule: "the image model must not be sent",
      ...option({ imageModel: "sdxl" }),
      expected: () => invalid("input.options.imageModel", "notAllowed"),
    },
    {
      rule: "free plan: 16:9 is not an allowed ratio",
      ...option({ ratioWidth: 16, ratioHeight: 9, resolution: 1024 }),
      expected: () => sizeError,
    },
    {
      rule: "free plan: resolution must be 1024",
      ...option({ ratioWidth: 1, ratioHeight: 1, resolution: 512 }),
      expected: () => sizeError,
    },
    {
      rule: "enterprise: aspect above 3:1 is rejected",
      ...option({ ratioWidth: 4, ratioHeight: 1, resolution: 720 }, () => f.ent),
      expected: () => sizeError,
    },
    {
      rule: "enterprise: fewer than 655,360 pixels is rejected",
      ...option({ ratioWidth: 1, ratioHeight: 1, resolution: 512 }, () => f.ent),
      expected: () => sizeError,
    },
    {
      rule: "enterprise: an edge above 3840 is rejected",
      ...option({ ratioWidth: 3, ratioHeight: 1, resolution: 1600 }, () => f.ent),
      expected: () => sizeError,
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: translation and dubbing", () => {
  it.each<Case>([
    {
      rule: "translation: targetLanguage is required",
      body: () => body("translation", { targetLanguage: undefined }),
      expected: () => invalid("input.targetLanguage", "required"),
    },
    {
      rule: "translation: targetLanguage is a code, not a display name",
      body: () => body("translation", { targetLanguage: "Spanish" }),
      expected: () => invalid("input.targetLanguage", "invalidFormat"),
    },
    {
      rule: "translation: sourceLayer is current, glossary or raw",
      body: () => body("translation", { sourceLayer: "final" }),
      expected: () => invalid("input.sourceLayer", "invalidValue"),
    },
    {
      rule: "translation: segments must not be sent",
      body: () => body("translation", { segments: [] }),
      expected: () => invalid("input.segments", "notAllowed"),
    },
    {
      rule: "translation: an unknown transcript is not found",
      body: () => body("translation", { textSourceId: "txt_unknown0005" }),
      expected: () => notFound("input.textSourceId", "notFound:txt_unknown0005", "transcription not found: txt_unknown0005"),
    },
    {
      rule: "translation: a transcript without segments is rejected",
      body: () => body("translation", { textSourceId: f.emptyTxt }),
      expected: () => invalid("input.textSourceId", `noSegments:${f.emptyTxt}`, `transcription ${f.emptyTxt} has no segments`),
    },
    {
      rule: "translation: a transcript whose transcription has not completed has no segments yet",
      body: () => body("translation", { textSourceId: f.queuedTxt }),
      expected: () => invalid("input.textSourceId", `noSegments:${f.queuedTxt}`, `transcription ${f.queuedTxt} has no segments`),
    },
    {
      rule: "dubbing: transcriptionId is required",
      body: () => body("dubbing", { transcriptionId: undefined }),
      expected: () => invalid("input.transcriptionId", "required"),
    },
    {
      rule: "dubbing: targetLanguage is a code, not a display name",
      body: () => body("dubbing", { targetLanguage: "Spanish" }),
      expected: () => invalid("input.targetLanguage", "invalidFormat"),
    },
    {
      rule: "dubbing: voiceAssignments keys are diarization labels",
      body: () => body("dubbing", { options: { voiceAssignments: { "speaker one": "vce_abc" } } }),
      expected: () => invalid("input.options.voiceAssignments.speaker one", "invalidKey"),
    },
    {
      rule: "dubbing: voiceAssignments values are vce_ ids",
      body: () => body("dubbing", { options: { voiceAssignments: { SPEAKER_00: "voice-1" } } }),
      expected: () => invalid("input.options.voiceAssignments.SPEAKER_00", "invalidFormat"),
    },
    {
      rule: "dubbing: minSpeakers must not exceed maxSpeakers",
      body: () => body("dubbing", { options: { diarization: { minSpeakers: 4, maxSpeakers: 2 } } }),
      expected: () => invalid("input.options.diarization", "minAboveMax"),
    },
    {
      rule: "dubbing: a transcript whose transcription has not completed has no segments yet",
      body: () => body("dubbing", { transcriptionId: f.queuedTxt }),
      expected: () => invalid("input.transcriptionId", `noSegments:${f.queuedTxt}`, `transcription ${f.queuedTxt} has no segments`),
    },
    {
      rule: "dubbing: an unknown transcript is not found",
      body: () => body("dubbing", { transcriptionId: "txt_unknown0006" }),
      expected: () => notFound("input.transcriptionId", "notFound:txt_unknown0006", "transcription not found: txt_unknown0006"),
    },
    {
      rule: "dubbing: an unknown translationId is not found",
      body: () => body("dubbing", { translationId: "trl_unknown0007" }),
      expected: () => notFound("input.translationId", "notFound:trl_unknown0007", "translation not found: trl_unknown0007"),
    },
  ])("$rule", run);
});

describe("POST /v1/jobs: references across services", () => {
  it("a summarization may reference the transcription job id: it resolves to that job's transcript", async () => {
    const res = await call<Job>("POST", "/v1/jobs", { key: f.t.projectKey, body: body("summarization", { textSourceJobId: f.txtJobId }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.input["textSourceId"]).toBe(f.txt);
    await call("POST", `/v1/jobs/${res.body.data.jobId}/cancel`, { key: f.t.projectKey });
  });
});

describe("POST /v1/jobs: credits", () => {
  it("a rejected request consumes no credits, while an accepted one is charged", async () => {
    const before = await usage(f.t);
    await expectRejected(f.t, body("transcription", { bucket: "media-other" }), invalid("input.bucket", "bucketNotAllowed"));
    expect(await usage(f.t)).toEqual(before);
    const res = await call<Job>("POST", "/v1/jobs", { key: f.t.projectKey, body: body("transcription") });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await usage(f.t))["transcription_jobs"]).toBe((before["transcription_jobs"] ?? 0) + 1);
  });
});
