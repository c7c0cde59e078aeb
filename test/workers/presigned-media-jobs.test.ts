import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import type { Job } from "../../contracts/job";
import { flattenOutputUrls, HANDOVER_TRANSCRIPT_CALL } from "../../contracts/presigned";
import { PROBE_CONCURRENCY } from "../../worker/services/shared/presigned-checks";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, patchSettings, waitForStatus } from "./helpers/jobs";
import { clipResult } from "./helpers/results";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, TRANSCRIPTION_HANDLER, transcriptionResult, usage } from "./helpers/transcripts";
import { presign, transcriptOutputUrls } from "../support/presign";

/**
 * `s3_presigned` for the services beyond transcription (docs/api.md, "Presigned sources and
 * outputs"): the same create-time probes, redaction and sealed runner grant, the variable-count
 * scheme (a list of URLs per kind of file, exactly as long as the job may write: `tooFewOutputUrls`
 * and `tooManyOutputUrls`), probes bounded in number and in flight, and the transcript handed over
 * without a bucket.
 */

let t: Tenant;
let txt: string;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  txt = (await completedTranscript(t, 3)).textSourceId;
  await patchSettings({ policy: { translation: { backend: "apertium" } } });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cancelUnfinished(t);
});

const s3 = () => inject("s3");
const BUCKET = "media-test";
const SIGNATURE = /X-Amz-Signature|X-Amz-Credential/i;

const sourceUrl = async () => presign(s3(), "GET", BUCKET, await putSource(`${unique("presigned")}/talk.mp4`, BUCKET));
const putUrls = (kind: string, n: number) =>
  Promise.all(Array.from({ length: n }, (_, i) => presign(s3(), "PUT", BUCKET, `${unique("out")}/${kind}-${i + 1}`)));

const create = (serviceType: string, input: Record<string, unknown>) =>
  call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: { serviceType, input: { sourceType: "s3_presigned", ...input } } });

/** The URLs of a request, by method, that the Worker sent while `fn` ran. */
async function probesDuring<T>(fn: () => Promise<T>): Promise<{ result: T; gets: string[]; puts: string[] }> {
  const spy = vi.spyOn(globalThis, "fetch");
  const result = await fn();
  const sent = spy.mock.calls
    .map(([input, init]) => ({ method: init?.method ?? (input instanceof Request ? input.method : "GET"), url: String(input) }))
    .filter((r) => r.url.startsWith(s3().endpoint));
  spy.mockRestore();
  return {
    result,
    gets: sent.filter((r) => r.method === "GET").map((r) => r.url),
    puts: sent.filter((r) => r.method === "PUT").map((r) => r.url),
  };
}

async function thumbnailRequest(covers = 2, frames = 3) {
  return {
    textSourceId: txt,
    sourceUrl: await sourceUrl(),
    outputUrls: { cover: await putUrls("cover", covers), frames: await putUrls("frame", frames) },
    options: { thumbnailCount: covers, nonAiThumbnailCount: frames },
  };
}

async function clipRequest(clips = 2) {
  return {
    textSourceId: txt,
    sourceUrl: await sourceUrl(),
    outputUrls: { video: await putUrls("clip", clips), poster: await putUrls("poster", clips) },
    options: { maxClips: clips },
  };
}

describe("thumbnails with presigned URLs", () => {
  it("probes the source with a ranged GET and every cover and frame URL with an empty PUT", async () => {
    const req = await thumbnailRequest();
    const { result, gets, puts } = await probesDuring(() => create("thumbnail", req));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(gets).toEqual([req.sourceUrl]);
    expect(puts.sort()).toEqual([...req.outputUrls.cover, ...req.outputUrls.frames].sort());
  });

  it("shows every URL redacted, keeping the lists' shape", async () => {
    const res = await create("thumbnail", await thumbnailRequest(1, 2));
    expect(res.status).toBe(201);
    expect(res.body.data.input["outputUrls"]).toEqual({
      cover: [expect.stringMatching(/\/cover-1\?…redacted$/)],
      frames: [expect.stringMatching(/\/frame-1\?…redacted$/), expect.stringMatching(/\/frame-2\?…redacted$/)],
    });
    expect(JSON.stringify(res.body)).not.toMatch(SIGNATURE);
  });

  it("the runner step's lease carries the full URLs, one per file (cover.0, frames.0, …), and no bucket grant", async () => {
    const req = await thumbnailRequest(1, 2);
    const created = await create("thumbnail", req);
    const task = await fakeRunner.leaseWhenReady(created.body.data.jobId, ["thumbnail"]);
    expect(task.presigned).toEqual({ sourceUrl: req.sourceUrl, outputUrls: flattenOutputUrls(req.outputUrls) });
    expect(task.storage).toBeNull();
  });

  it("hands the transcript over through the runner call, with no scratch key", async () => {
    const created = await create("thumbnail", await thumbnailRequest(1, 1));
    const task = await fakeRunner.leaseWhenReady(created.body.data.jobId, ["thumbnail"]);
    expect(task.outputs["fetch_transcription"]).toEqual({});
    const res = await fakeRunner.call<{ textSourceId: string; segments: unknown[] }>(task, HANDOVER_TRANSCRIPT_CALL, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ textSourceId: txt, segments: expect.any(Array) });
    expect(res.body.data.segments).toHaveLength(3);
  });

  it("more frame URLs than nonAiThumbnailCount is refused with 422 tooManyOutputUrls before any URL is probed", async () => {
    const req = await thumbnailRequest(1, 2);
    const extra = await putUrls("frame", 3);
    const { result, gets, puts } = await probesDuring(() =>
      create("thumbnail", {
        ...req,
        outputUrls: { ...req.outputUrls, frames: [...req.outputUrls.frames, ...extra] },
      }),
    );
    expectError(result, 422, "validationError");
    expect(result.body.error?.details).toEqual([{ path: "input.outputUrls.frames", issue: "tooManyOutputUrls" }]);
    expect([...gets, ...puts]).toEqual([]);
  });

  it("fewer cover URLs than thumbnailCount is refused with 422 tooFewOutputUrls", async () => {
    const req = await thumbnailRequest(1, 1);
    const res = await create("thumbnail", { ...req, options: { thumbnailCount: 2, nonAiThumbnailCount: 1 } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.cover", issue: "tooFewOutputUrls" }]);
  });

  it("the sealed URLs are deleted when the job ends", async () => {
    const created = await create("thumbnail", await thumbnailRequest(1, 1));
    const task = await fakeRunner.leaseWhenReady(created.body.data.jobId, ["thumbnail"]);
    await fakeRunner.fail(task, "output_access_denied", false, "writing output cover.0 was refused (HTTP 403)");
    await waitForStatus(t, created.body.data.jobId, "failed");
    expect(await env.DB.prepare("SELECT job_id FROM job_secrets WHERE job_id = ?").bind(created.body.data.jobId).first()).toBeNull();
  });
});

describe("clip generation with presigned URLs", () => {
  it("probes the source and every clip and poster URL, and the runner step's lease carries them all", async () => {
    const req = await clipRequest(2);
    const { result, gets, puts } = await probesDuring(() => create("clip_generation", req));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(gets).toEqual([req.sourceUrl]);
    expect(puts.sort()).toEqual([...req.outputUrls.video, ...req.outputUrls.poster].sort());
    expect(JSON.stringify(result.body)).not.toMatch(SIGNATURE);
    const task = await fakeRunner.leaseWhenReady(result.body.data.jobId, ["clip_generation"]);
    expect(task.presigned).toEqual({ sourceUrl: req.sourceUrl, outputUrls: flattenOutputUrls(req.outputUrls) });
  });

  it("a list shorter than the effective maxClips is refused with 422 tooFewOutputUrls and charges nothing", async () => {
    const before = (await usage(t))["clip_credits"] ?? 0;
    const req = await clipRequest(2);
    const res = await create("clip_generation", { ...req, outputUrls: { ...req.outputUrls, poster: req.outputUrls.poster.slice(0, 1) } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.message).toBe("outputUrls.poster holds 1 URLs; the job may write up to 2");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.poster", issue: "tooFewOutputUrls" }]);
    expect((await usage(t))["clip_credits"] ?? 0).toBe(before);
  });

  it("the runner's result names the job's own URLs (redacted): any other URL is refused with 422", async () => {
    const created = await create("clip_generation", await clipRequest(1));
    const job = created.body.data;
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["clip_generation"]);
    const foreign = clipResult(job, 1);
    foreign.clips[0]!.videoKey = "https://attacker.example/other-tenant/clip.mp4";
    const res = await fakeRunner.complete(task, foreign as unknown as Record<string, unknown>);
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.clips.0.videoKey", issue: "notJobOutput" }]);
    expect((await fakeRunner.complete(task, clipResult(job, 1) as unknown as Record<string, unknown>)).status).toBe(200);
    await waitForStatus(t, job.jobId, "completed");
  });

  it("a list longer than the effective maxClips is refused with 422 tooManyOutputUrls before any URL is probed", async () => {
    const req = await clipRequest(2);
    const extra = await putUrls("clip", 58);
    const { result, gets, puts } = await probesDuring(() =>
      create("clip_generation", { ...req, outputUrls: { ...req.outputUrls, video: [...req.outputUrls.video, ...extra] } }),
    );
    expectError(result, 422, "validationError");
    expect(result.body.error?.message).toBe("outputUrls.video holds 60 URLs; the job writes at most 2 (the effective maxClips): send 2");
    expect(result.body.error?.details).toEqual([{ path: "input.outputUrls.video", issue: "tooManyOutputUrls" }]);
    expect([...gets, ...puts]).toEqual([]);
  });

  it("a list sized for a maxClips above the plan's cap is refused: the job can use only the cap's worth", async () => {
    const req = await clipRequest(31);
    const res = await create("clip_generation", req);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.video", issue: "tooManyOutputUrls" }]);
  });

  it(`probes at most ${PROBE_CONCURRENCY} URLs at once, and each URL once`, async () => {
    let inFlight = 0;
    let most = 0;
    const seen: string[] = [];
    const real = globalThis.fetch.bind(globalThis);
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      // Only the presigned probes are held back (the transcript's own source is read header-signed, with no query).
      if (typeof input !== "string" || !input.startsWith(s3().endpoint) || !input.includes("X-Amz-Signature=")) return real(input, init);
      seen.push(input);
      most = Math.max(most, ++inFlight);
      await new Promise((r) => setTimeout(r, 5));
      inFlight--;
      // The source probe's ranged GET is answered as a store answers it: the byte asked for, and the size.
      const ranged = new Headers(init?.headers).has("range");
      return ranged
        ? new Response("x", { status: 206, headers: { "content-range": "bytes 0-0/1000" } })
        : new Response(null, { status: 200 });
    });
    const req = await clipRequest(12);
    const res = await create("clip_generation", req);
    vi.restoreAllMocks();
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(most).toBeLessThanOrEqual(PROBE_CONCURRENCY);
    expect(seen.sort()).toEqual([req.sourceUrl, ...req.outputUrls.video, ...req.outputUrls.poster].sort());
  });

  it("without maxClips, the plan's default decides how many URLs each list needs", async () => {
    const req = await clipRequest(1);
    const res = await create("clip_generation", { ...req, options: {} });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.video", issue: "tooFewOutputUrls" }]);
  });
});

/** A transcription made from presigned URLs, completed: its transcript has no bucket location. */
async function presignedTranscript(): Promise<string> {
  const created = await create("transcription", {
    sourceUrl: await sourceUrl(),
    outputUrls: await transcriptOutputUrls(s3(), BUCKET, `${unique("out")}/`),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const job = created.body.data;
  const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
  const result = { ...transcriptionResult(job, 2), outputKeys: job.input["outputUrls"] };
  expect((await fakeRunner.complete(task, result as unknown as Record<string, unknown>)).status).toBe(200);
  await waitForStatus(t, job.jobId, "completed");
  return String(job.input["textSourceId"]);
}

describe("deleting what presigned URLs wrote", () => {
  it("deleteOutputs cannot reach files written through presigned URLs: the answer keeps them and says why", async () => {
    const txt = await presignedTranscript();
    const res = await call<{ outputs: { deleted: number; kept: Array<{ what: string; reason: string }> } }>(
      "DELETE",
      `/v1/transcriptions/${txt}?deleteOutputs=true`,
      { key: t.projectKey },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.outputs.deleted).toBe(0);
    expect(res.body.data.outputs.kept).toEqual([
      { what: "transcript files", key: null, reason: expect.stringMatching(/presigned URLs/) as string },
    ]);
  });
});

describe("translation with presigned URLs", () => {
  it("probes the srt and vtt URLs with empty PUTs and reads no source", async () => {
    const outputUrls = { srt: (await putUrls("srt", 1))[0]!, vtt: (await putUrls("vtt", 1))[0]! };
    const { result, gets, puts } = await probesDuring(() => create("translation", { textSourceId: txt, targetLanguage: "es", outputUrls }));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(gets).toEqual([]);
    expect(puts.sort()).toEqual([outputUrls.srt, outputUrls.vtt].sort());
  });

  it("shows the URLs redacted as the job's output keys and grants the runner the full ones, with no bucket", async () => {
    const outputUrls = { srt: (await putUrls("srt", 1))[0]!, vtt: (await putUrls("vtt", 1))[0]! };
    const res = await create("translation", { textSourceId: txt, targetLanguage: "es", outputUrls });
    expect(res.status).toBe(201);
    expect(JSON.stringify(res.body)).not.toMatch(SIGNATURE);
    expect(res.body.data.input["resolvedOutputKeys"]).toEqual({
      srt: expect.stringMatching(/\?…redacted$/),
      vtt: expect.stringMatching(/\?…redacted$/),
    });
    const task = await fakeRunner.leaseWhenReady(res.body.data.jobId, ["translation"]);
    expect(task.presigned).toEqual({ sourceUrl: null, outputUrls });
    expect(task.storage).toBeNull();
  });

  it("a transcript made from presigned URLs is translated into the request's own URLs", async () => {
    const fromUrls = await presignedTranscript();
    const outputUrls = { srt: (await putUrls("srt", 1))[0]!, vtt: (await putUrls("vtt", 1))[0]! };
    const res = await create("translation", { textSourceId: fromUrls, targetLanguage: "es", outputUrls });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });

  it("a transcript made from presigned URLs without outputUrls is refused with 422 noOutputLocation", async () => {
    const fromUrls = await presignedTranscript();
    const res = await call("POST", "/v1/jobs", {
      key: t.projectKey,
      body: { serviceType: "translation", input: { textSourceId: fromUrls, targetLanguage: "es" } },
    });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.textSourceId", issue: "noOutputLocation" }]);
    expect(res.body.error?.message).toContain("send sourceType s3_presigned with outputUrls");
  });
});

describe("voice creation with presigned URLs", () => {
  it("probes the sample with a ranged GET and the reference URL with an empty PUT, and grants the runner both", async () => {
    const req = {
      name: "Host",
      language: "en",
      sourceUrl: await sourceUrl(),
      outputUrls: { reference: (await putUrls("reference", 1))[0]! },
    };
    const { result, gets, puts } = await probesDuring(() => create("voice_creation", req));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect({ gets, puts }).toEqual({ gets: [req.sourceUrl], puts: [req.outputUrls.reference] });
    expect(JSON.stringify(result.body)).not.toMatch(SIGNATURE);
    const task = await fakeRunner.leaseWhenReady(result.body.data.jobId, ["voice_creation"]);
    expect(task.presigned).toEqual({ sourceUrl: req.sourceUrl, outputUrls: req.outputUrls });
    expect(task.storage).toBeNull();
  });

  it("POST /v1/voices takes the same fields, and the voice shows its sample's URL redacted", async () => {
    const res = await call<{ voiceId: string; sample: Record<string, unknown> }>("POST", "/v1/voices", {
      key: t.projectKey,
      body: { name: "Guest", language: "en", sourceType: "s3_presigned", sourceUrl: await sourceUrl() },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(JSON.stringify(res.body)).not.toMatch(SIGNATURE);
    expect(res.body.data.sample["sourceUrl"]).toMatch(/\/talk\.mp4\?…redacted$/);
  });
});

const DUB_ARTIFACTS = ["rawAudio", "vocals", "background", "speech", "mix", "video"];

async function dubbingRequest(withSubtitles: boolean) {
  const names = withSubtitles ? [...DUB_ARTIFACTS, "srt", "vtt"] : DUB_ARTIFACTS;
  const urls = await Promise.all(names.map(async (n) => [n, (await putUrls(n, 1))[0]!] as const));
  return { transcriptionId: txt, targetLanguage: "es", sourceUrl: await sourceUrl(), outputUrls: Object.fromEntries(urls) };
}

describe("dubbing with presigned URLs", () => {
  it("probes the video and every artifact and subtitle URL, and grants the runner them all with no bucket", async () => {
    const req = await dubbingRequest(true);
    const { result, gets, puts } = await probesDuring(() => create("dubbing", req));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    expect(gets).toEqual([req.sourceUrl]);
    expect(puts.sort()).toEqual(Object.values(req.outputUrls).sort());
    expect(JSON.stringify(result.body)).not.toMatch(SIGNATURE);
    expect(result.body.data.input["translation"]).toMatchObject({
      bucket: null,
      resolvedOutputKeys: { srt: expect.stringMatching(/\?…redacted$/) },
    });
    const task = await fakeRunner.leaseWhenReady(result.body.data.jobId, ["dubbing"]);
    expect(task.presigned).toEqual({ sourceUrl: req.sourceUrl, outputUrls: req.outputUrls });
    expect(task.storage).toBeNull();
  });

  it("a job that translates first without srt and vtt URLs is refused with 422 required", async () => {
    const res = await create("dubbing", await dubbingRequest(false));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.srt", issue: "required" }]);
  });
});
