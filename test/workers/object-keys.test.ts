import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { StepSpec } from "../../contracts/pipelines";
import { getDb } from "../../worker/db/client";
import { deleteScratch, scratchPrefix } from "../../worker/storage/scratch";
import { workerService } from "../../worker/services/index";
import { handOver } from "../../worker/services/shared/transcript-handover";
import type { StepResultContext } from "../../worker/services/types";
import { isUnderPrefix } from "../../worker/storage/object-keys";
import { call, expectError } from "./helpers/api";
import { putSource, testS3 } from "./helpers/s3";
import { clipResult, dubbingSave, thumbnailResult } from "./helpers/results";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Object keys with `.` or `..` segments (review M3): with path-style URLs they are normalised into
 * another key or bucket, out of the connection's `buckets` allow-list. Every key a client names is
 * refused at create (422 `dotSegment`); every key a runner reports is refused before it is stored or
 * deleted; scratch cleanup compares keys by path segments.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant();
});

const DOT_KEYS = ["../media-other/secret.mp4", "a/../b.mp4", "./a.mp4", "a/./b.mp4", "a/..", "..", "."];
const PLAIN_KEYS = ["a..b/c.mp4", ".hidden/c.mp4", "a/.../c.mp4", "a/b..mp4"];

const dotSegment = (path: string) => [{ path, issue: "dotSegment" }];

async function createJob(body: unknown) {
  return call("POST", "/v1/jobs", { key: t.projectKey, body });
}

describe("a client's object keys", () => {
  it("the review's reproduction: sourceKey ../other-bucket/secret.mp4 on a one-bucket connection is 422 dotSegment", async () => {
    // The object is really there, in the bucket the connection does not list.
    await putSource("secret.mp4", "media-other");
    const res = await createJob({
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket, sourceKey: "../media-other/secret.mp4" },
    });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(dotSegment("input.sourceKey"));
  });

  it.each(DOT_KEYS)("transcription sourceKey %j is 422 dotSegment", async (sourceKey) => {
    const res = await createJob({
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket, sourceKey },
    });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(dotSegment("input.sourceKey"));
  });

  it.each(PLAIN_KEYS)("a key with dots that are not whole segments (%j) passes the key rule", async (sourceKey) => {
    const res = await createJob({
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket, sourceKey },
    });
    // The object does not exist: the probe, not the key rule, refuses it.
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "sourceNotFound" }]);
  });

  it.each(["clip_generation", "thumbnail"])("a %s job's sourceKey override is 422 dotSegment", async (serviceType) => {
    const res = await createJob({ serviceType, input: { textSourceId: "txt_any", sourceKey: "clips/../../media-other/secret.mp4" } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(dotSegment("input.sourceKey"));
  });

  it("a voice sample's sourceKey is 422 dotSegment, through POST /v1/jobs and POST /v1/voices", async () => {
    const input = { name: "v", connectionId: t.connectionId, bucket: t.bucket, sourceKey: "../media-other/voice.wav", language: "en" };
    const viaJobs = await createJob({ serviceType: "voice_creation", input });
    const viaVoices = await call("POST", "/v1/voices", { key: t.projectKey, body: input });
    for (const res of [viaJobs, viaVoices]) {
      expectError(res, 422, "validationError");
      expect(res.body.error?.details).toEqual(dotSegment("input.sourceKey"));
    }
  });

  it("a brand logo's key is 422 dotSegment", async () => {
    const res = await call("PATCH", `/v1/projects/${t.projectId}`, {
      key: t.workspaceKey,
      body: { branding: { logo: { connectionId: t.connectionId, bucket: t.bucket, key: "../media-other/logo.png" } } },
    });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(dotSegment("branding.logo.key"));
  });
});

/** A job as a sink sees it: enough input for the result builders. */
function fakeJob(serviceType: string, input: Record<string, unknown>): Job {
  return { jobId: `job_${unique("k")}`, serviceType, projectId: t.projectId, input } as unknown as Job;
}

function sinkContext(job: Job): StepResultContext {
  return { env, db: getDb(env.DB), job, step: {} as StepSpec };
}

describe("keys a runner reports", () => {
  it("a clip result whose videoKey has a .. segment fails the step as an invalid result, storing nothing", async () => {
    const job = fakeJob("clip_generation", { resolvedOutputPrefix: "out/", clipGenerationId: "clp_none" });
    const result = clipResult(job, 2);
    result.clips[1] = { ...result.clips[1]!, videoKey: "out/../../media-other/x.mp4" };
    const applied = await workerService("clip_generation").sinks["clip_generation"]!(sinkContext(job), { ...result });
    expect(applied).toEqual({ ok: false, error: { code: "processing_failed", message: expect.stringContaining("clips.1.videoKey") } });
  });

  it("a thumbnail result whose key has a . segment fails the step", async () => {
    const job = fakeJob("thumbnail", { resolvedOutputPrefix: "out/", bucket: "media-test", size: { width: 1024, height: 1024 } });
    const result = thumbnailResult(job, 1, 1);
    result.thumbnails[0] = { ...result.thumbnails[0]!, key: "out/./cover.jpg" };
    const applied = await workerService("thumbnail").sinks["thumbnail"]!(sinkContext(job), { ...result });
    expect(applied).toEqual({ ok: false, error: { code: "processing_failed", message: expect.stringContaining("thumbnails.0.key") } });
  });

  it("a transcription result whose output key has a .. segment fails the step", async () => {
    const job = fakeJob("transcription", { textSourceId: "txt_none" });
    const result = {
      language: "en",
      durationSec: 2,
      engine: "e",
      model: "m",
      segments: [{ id: 0, start: 0, end: 2, text: "hi" }],
      visualChunks: [],
      outputKeys: { fullText: "out/t.txt", segments: "out/s.json", srt: "../media-other/t.srt", vtt: "out/t.vtt" },
    };
    const applied = await workerService("transcription").sinks["transcription"]!(sinkContext(job), result);
    expect(applied).toEqual({ ok: false, error: { code: "processing_failed", message: expect.stringContaining("outputKeys.srt") } });
  });

  it("a voice's referenceKey with a .. segment fails the step", async () => {
    const job = fakeJob("voice_creation", { voiceId: "vce_none" });
    const result = {
      voiceId: "vce_none",
      spec: { kind: "clone", engine: "e", language: "en" },
      model: "m",
      referenceKey: "voices/../../media-other/ref.wav",
      sampleSpeechSec: 3,
    };
    const applied = await workerService("voice_creation").sinks["voice_creation"]!(sinkContext(job), result);
    expect(applied).toEqual({ ok: false, error: { code: "processing_failed", message: expect.stringContaining("referenceKey") } });
  });

  it("dubbing.save with an artifact key with a .. segment is a protocol error, and nothing is saved", async () => {
    const job = fakeJob("dubbing", { resolvedOutputPrefix: "out/", translationId: "trl_none", dubbingId: "dub_none" });
    const save = dubbingSave(job, "vce_x", { artifacts: { ...dubbingSave(job, "vce_x").artifacts, mix: "out/../../media-other/mix.m4a" } });
    const saveCall = workerService("dubbing").runnerCalls!["dubbing.save"]!;
    await expect(saveCall({ env, db: getDb(env.DB), job, step: {} as StepSpec, attempt: 0 }, save)).rejects.toMatchObject({
      code: "protocolError",
      message: expect.stringContaining("artifacts.mix"),
    });
  });

  it("a hand-over key outside the job's scratch folder fails the step", async () => {
    const job = fakeJob("clip_generation", {});
    const escaped = `${scratchPrefix(job.jobId)}../../victim.json`;
    const applied = await handOver(sinkContext(job), { transcriptKey: escaped, segmentCount: 1, artifacts: [] });
    expect(applied).toMatchObject({ ok: false, error: { code: "processing_failed" } });
  });
});

describe("scratch cleanup", () => {
  it("compares keys by path segments: a scratch-looking key with .. segments is not the job's", () => {
    const prefix = scratchPrefix("job_1");
    expect(isUnderPrefix(`${prefix}transcript.json`, prefix)).toBe(true);
    expect(isUnderPrefix(`${prefix}../../x`, prefix)).toBe(false);
    expect(isUnderPrefix(`${prefix}./x`, prefix)).toBe(false);
    expect(isUnderPrefix("_media-jobs/scratch/job_12/x", prefix)).toBe(false);
    expect(isUnderPrefix(prefix, prefix)).toBe(false);
  });

  it("deletes the job's own scratch objects and never an object a .. key would reach", async () => {
    const job = fakeJob("clip_generation", { connectionId: t.connectionId, bucket: t.bucket });
    const own = `${scratchPrefix(job.jobId)}transcript.json`;
    const victim = `_media-jobs/${unique("victim")}.json`;
    await putSource(own);
    await putSource(victim);
    await deleteScratch(env, job, [own, `${scratchPrefix(job.jobId)}../../${victim.split("/")[1]}`]);
    expect(await testS3().headObject(t.bucket, own)).toBeNull();
    expect(await testS3().headObject(t.bucket, victim)).not.toBeNull();
  });
});
