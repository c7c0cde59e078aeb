import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { TRANSCRIPTION_HANDLER } from "./helpers/transcripts";
import { presign, transcriptOutputUrls, type PresignOptions } from "../support/presign";

/**
 * `s3_presigned` transcription jobs at create (docs/api.md, "Presigned sources and outputs"): URLs
 * signed with the local S3 server's credentials, checked without connecting (scheme, address,
 * expiry) and then probed; the job shows them redacted and only a runner's lease carries them whole.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cancelUnfinished(t);
});

const s3 = () => inject("s3");
const BUCKET = "media-test";

interface Urls {
  sourceUrl: string;
  outputUrls: Record<string, string>;
}

async function validUrls(opts: PresignOptions = {}): Promise<Urls> {
  const key = await putSource(`${unique("presigned")}/talk.mp4`, BUCKET);
  return {
    sourceUrl: await presign(s3(), "GET", BUCKET, key, opts),
    outputUrls: await transcriptOutputUrls(s3(), BUCKET, `${unique("out")}/`, opts),
  };
}

const body = (urls: Urls, extra: Record<string, unknown> = {}) => ({
  serviceType: "transcription",
  input: { sourceType: "s3_presigned", ...urls, ...extra },
});

const create = (b: unknown) => call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: b });

/** The requests the Worker sends while `fn` runs (create's probes go through the global fetch). */
async function outboundDuring<T>(fn: () => Promise<T>): Promise<{ result: T; sent: Array<{ method: string; url: string }> }> {
  const spy = vi.spyOn(globalThis, "fetch");
  const result = await fn();
  const sent = spy.mock.calls.map(([input, init]) => {
    const req = input instanceof Request ? input : null;
    return { method: init?.method ?? req?.method ?? "GET", url: req ? req.url : String(input) };
  });
  spy.mockRestore();
  return { result, sent };
}

const SIGNATURE = /X-Amz-Signature|X-Amz-Credential/i;

describe("create with presigned URLs", () => {
  it("valid URLs are probed (a ranged GET of the source, an empty PUT per output) and the job is created", async () => {
    const urls = await validUrls();
    const { result, sent } = await outboundDuring(() => create(body(urls)));
    expect(result.status, JSON.stringify(result.body)).toBe(201);
    const probes = sent.filter((r) => r.url.startsWith(s3().endpoint));
    expect(probes.filter((r) => r.method === "GET").map((r) => r.url)).toEqual([urls.sourceUrl]);
    expect(probes.filter((r) => r.method === "PUT").map((r) => r.url)).toEqual(expect.arrayContaining(Object.values(urls.outputUrls)));
  });

  it("the create response shows every URL without its query string", async () => {
    const res = await create(body(await validUrls()));
    expect(res.status).toBe(201);
    expect(res.body.data.input["sourceUrl"]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/media-test\/.+\/talk\.mp4\?…redacted$/);
    expect(Object.values(res.body.data.input["outputUrls"] as Record<string, string>)).toEqual(
      Array(4).fill(expect.stringMatching(/\?…redacted$/)),
    );
    expect(JSON.stringify(res.body)).not.toMatch(SIGNATURE);
  });

  it("GET /v1/jobs/{jobId} and the job list carry no signature", async () => {
    const created = await create(body(await validUrls()));
    const one = await call("GET", `/v1/jobs/${created.body.data.jobId}`, { key: t.projectKey });
    const list = await call("GET", "/v1/jobs?limit=100", { key: t.projectKey });
    expect(one.status).toBe(200);
    expect(JSON.stringify(one.body)).not.toMatch(SIGNATURE);
    expect(JSON.stringify(list.body)).not.toMatch(SIGNATURE);
  });

  it("the runner's lease carries the full URLs in its presigned grant, and no bucket grant", async () => {
    const urls = await validUrls();
    const created = await create(body(urls));
    const task = await fakeRunner.leaseWhenReady(created.body.data.jobId, TRANSCRIPTION_HANDLER);
    expect(task.presigned).toEqual(urls);
    expect(task.storage).toBeNull();
  });

  it("the sealed full URLs are deleted when the job ends", async () => {
    const created = await create(body(await validUrls()));
    const task = await fakeRunner.leaseWhenReady(created.body.data.jobId, TRANSCRIPTION_HANDLER);
    await fakeRunner.fail(task, "presigned_url_expired", false, "the presigned URL for srt has expired");
    await waitForStatus(t, created.body.data.jobId, "failed");
    const row = await env.DB.prepare("SELECT job_id FROM job_secrets WHERE job_id = ?").bind(created.body.data.jobId).first();
    expect(row).toBeNull();
  });
});

describe("refused presigned URLs", () => {
  it("a URL that has expired is refused with 422 urlExpired", async () => {
    const urls = await validUrls({ signedAt: new Date(Date.now() - 2 * 3600_000), expiresSec: 3600 });
    const res = await create(body(urls));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "urlExpired" }]);
  });

  it("a URL that expires within the margin (1 h) is refused with 422 urlExpiresTooSoon", async () => {
    const urls = await validUrls();
    urls.outputUrls["srt"] = await presign(s3(), "PUT", BUCKET, `${unique("out")}/transcript.srt`, { expiresSec: 600 });
    const res = await create(body(urls));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.srt", issue: "urlExpiresTooSoon" }]);
    expect(res.body.error?.message).toContain("at least 3600 s");
  });

  it.each(["https://10.0.0.5", "https://169.254.169.254", "https://[fd00::5]", "https://metadata.google.internal"])(
    "a URL on %s is refused with 422 privateAddress, with no connection attempt",
    async (origin) => {
      const urls = await validUrls();
      urls.outputUrls["vtt"] = `${origin}/media-test/out/transcript.vtt?X-Amz-Signature=abc`;
      const { result, sent } = await outboundDuring(() => create(body(urls)));
      expectError(result, 422, "validationError");
      expect(result.body.error?.details).toEqual([{ path: "input.outputUrls.vtt", issue: "privateAddress" }]);
      expect(sent).toEqual([]);
    },
  );

  it("plain http to a public host is refused with 422 httpsRequired", async () => {
    const urls = await validUrls();
    urls.sourceUrl = "http://media.example.com/in/talk.mp4?X-Amz-Signature=abc";
    const res = await create(body(urls));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "httpsRequired" }]);
  });

  it("an upload URL that answers 403 is refused with 422 naming the output", async () => {
    const urls = await validUrls();
    const wrongSecret = { ...s3(), secretAccessKey: "not-the-secret" };
    urls.outputUrls["segments"] = await presign(wrongSecret, "PUT", BUCKET, `${unique("out")}/segments.json`);
    const res = await create(body(urls));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.segments", issue: "outputNotWritable" }]);
    expect(res.body.error?.message).toMatch(/outputUrls\.segments is not writable: .*\?…redacted \(HTTP 403\)/);
    expect(res.body.error?.message).not.toMatch(SIGNATURE);
  });

  it("a source URL that answers 404 is refused with 422 sourceNotFound", async () => {
    const urls = await validUrls();
    urls.sourceUrl = await presign(s3(), "GET", BUCKET, `${unique("missing")}/talk.mp4`);
    const res = await create(body(urls));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "sourceNotFound" }]);
  });

  it("connectionId or bucket with s3_presigned is refused with 422 notAllowed", async () => {
    const res = await create(body(await validUrls(), { connectionId: t.connectionId, bucket: BUCKET }));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual(
      expect.arrayContaining([
        { path: "input.connectionId", issue: "notAllowed" },
        { path: "input.bucket", issue: "notAllowed" },
      ]),
    );
  });

  it("an output name missing from outputUrls is refused with 422 required", async () => {
    const urls = await validUrls();
    delete urls.outputUrls["vtt"];
    const res = await create(body(urls));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.vtt", issue: "required" }]);
  });

  it("a service type that reads no source and writes no files (metadata) refuses s3_presigned", async () => {
    const res = await create({ serviceType: "metadata", input: { sourceType: "s3_presigned", textSourceId: "txt_x" } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.message).toBe("s3_presigned is not supported for metadata");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceType", issue: "presignedNotSupported" }]);
  });
});
