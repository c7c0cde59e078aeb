import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import { BRAND_LOGO_CALL, MAX_LOGO_BYTES, type BrandLogoHandover } from "../../contracts/branding";
import type { Job } from "../../contracts/job";
import { presign, transcriptOutputUrls } from "../support/presign";
import { call, expectError, type ApiResponse } from "./helpers/api";
import { cancelUnfinished, fakeRunner } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createConnection, createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";

/**
 * The Worker's create-time probes against a hostile customer server (test/workers/setup/global-hostile.ts,
 * on loopback): a redirect is never followed and is a 422 `redirectRefused` (its target, a second
 * listener, receives nothing); a server that ignores `Range` and sends 64 MiB, or answers an error
 * with a 64 MiB body, costs the isolate a few KiB (counted as the Worker reads the answers) and
 * gets a clear 422; a source larger than any runner downloads is refused at create, uncharged. The
 * brand logo is read with its cap.
 */

const HOSTILE_BUCKET = "hostile";
let t: Tenant;
let hostileConnection: string;
const hostile = () => inject("hostile");

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  // The customer's "S3 endpoint" is the hostile server (it answers the connection's bucket check).
  hostileConnection = await createConnection(t.projectKey, { endpoint: hostile(), buckets: [HOSTILE_BUCKET] });
});
afterEach(async () => cancelUnfinished(t));

interface Stats {
  seen: Array<{ method: string; path: string; bytesSent: number; closed: boolean }>;
  bystander: { connections: number; requests: number };
}

async function stats(): Promise<Stats> {
  return (await fetch(`${hostile()}/_stats`)).json<Stats>();
}

/**
 * Runs `fn` and counts the response bytes the Worker reads meanwhile: every answer to the Worker's
 * fetches is passed on through a counter (the test shares the Worker's isolate and its fetch).
 */
async function bytesReadDuring<T>(fn: () => Promise<T>): Promise<{ result: T; read: number }> {
  const real = globalThis.fetch;
  let read = 0;
  const spy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const res = await real(input, init);
    if (!res.body) return res;
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, out) {
        read += chunk.byteLength;
        out.enqueue(chunk);
      },
    });
    return new Response(res.body.pipeThrough(counter), res);
  });
  try {
    return { result: await fn(), read };
  } finally {
    spy.mockRestore();
  }
}

/** Posts a job and checks that it is refused without a charge; returns the answer. */
async function refusedUncharged(body: unknown): Promise<ApiResponse<Job>> {
  const before = await usage(t);
  const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body });
  expect(await usage(t)).toEqual(before);
  return res;
}

const bucketTranscription = (sourceKey: string) => ({
  serviceType: "transcription",
  input: { sourceType: "s3_direct", connectionId: hostileConnection, bucket: HOSTILE_BUCKET, sourceKey },
});

async function presignedTranscription(sourceUrl: string, outputUrls?: Record<string, string>) {
  const signing = inject("s3");
  return {
    serviceType: "transcription",
    input: {
      sourceType: "s3_presigned",
      sourceUrl,
      outputUrls: outputUrls ?? (await transcriptOutputUrls(signing, t.bucket, `${unique("out")}/`)),
    },
  };
}

const hostileUrl = (name: string) => `${hostile()}/presigned/${name}?X-Amz-Signature=abc`;

describe("create-time probes of a bucket source on a hostile store", () => {
  it("a source whose probe is answered with a redirect is refused 422 redirectRefused, and the redirect's target receives nothing", async () => {
    const before = (await stats()).bystander;
    const res = await refusedUncharged(bucketTranscription(`${unique("redirect")}.mp4`));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "redirectRefused" }]);
    expect(res.body.error?.message).toMatch(/answered with a redirect \(HTTP 302\), which the service does not follow$/);
    expect(res.body.error?.message).not.toContain("/inside");
    expect((await stats()).bystander).toEqual(before);
  });

  it("a store that ignores Range and sends 64 MiB without a length gets a clear 422 sourceSizeUnknown; the Worker reads a few KiB", async () => {
    const { result: res, read } = await bytesReadDuring(() => refusedUncharged(bucketTranscription(`${unique("endless")}.mp4`)));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "sourceSizeUnknown" }]);
    expect(read).toBeLessThan(256 * 1024);
  });

  it("a source over runner.maxSourceBytes is refused at create with 422 sourceTooLarge, uncharged", async () => {
    const res = await refusedUncharged(bucketTranscription(`${unique("declared")}.mp4`));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "sourceTooLarge" }]);
    expect(res.body.error?.message).toMatch(
      /is 11811160064 bytes \(11 GiB\); at most 10737418240 bytes \(10 GiB\) are accepted \(runner\.maxSourceBytes\)$/,
    );
  });

  it("an error answer with a 64 MiB body is read to a few KiB and refused 422 sourceUnreadable", async () => {
    const { result: res, read } = await bytesReadDuring(() => refusedUncharged(bucketTranscription(`${unique("refused")}.mp4`)));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "sourceUnreadable" }]);
    expect(res.body.error?.message).toContain("HTTP 403");
    expect(read).toBeLessThan(256 * 1024);
  });
});

describe("create-time probes of presigned URLs on a hostile server", () => {
  it("a source URL that redirects is refused 422 redirectRefused, and the redirect's target receives nothing", async () => {
    const before = (await stats()).bystander;
    const res = await refusedUncharged(await presignedTranscription(hostileUrl(`${unique("redirect")}.mp4`)));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "redirectRefused" }]);
    expect(res.body.error?.message).not.toContain("X-Amz-Signature");
    expect((await stats()).bystander).toEqual(before);
  });

  it("an output URL that answers the empty PUT with 307 is refused 422 redirectRefused, and the PUT goes nowhere else", async () => {
    const before = (await stats()).bystander;
    const signing = inject("s3");
    const outputs = await transcriptOutputUrls(signing, t.bucket, `${unique("out")}/`);
    const sourceUrl = await presign(signing, "GET", t.bucket, await putSource(`${unique("presigned")}/talk.mp4`, t.bucket));
    const res = await refusedUncharged(
      await presignedTranscription(sourceUrl, { ...outputs, srt: hostileUrl(`${unique("redirect307")}.srt`) }),
    );
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.outputUrls.srt", issue: "redirectRefused" }]);
    expect((await stats()).bystander).toEqual(before);
  });

  it("a source server that ignores Range and sends 64 MiB without a length gets a clear 422 sourceSizeUnknown; the Worker reads a few KiB", async () => {
    const body = await presignedTranscription(hostileUrl(`${unique("endless")}.mp4`));
    const { result: res, read } = await bytesReadDuring(() => refusedUncharged(body));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "sourceSizeUnknown" }]);
    expect(read).toBeLessThan(256 * 1024);
  });

  it("a source whose Content-Range states more than runner.maxSourceBytes is refused 422 sourceTooLarge, uncharged", async () => {
    const res = await refusedUncharged(await presignedTranscription(hostileUrl(`${unique("ranged-huge")}.mp4`)));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "sourceTooLarge" }]);
  });

  it("a refusal with a 64 MiB body is read to a few KiB and refused 422 sourceUnreadable", async () => {
    const body = await presignedTranscription(hostileUrl(`${unique("refused")}.mp4`));
    const { result: res, read } = await bytesReadDuring(() => refusedUncharged(body));
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.sourceUrl", issue: "sourceUnreadable" }]);
    expect(read).toBeLessThan(256 * 1024);
  });
});

describe("the brand logo", () => {
  it("a logo replaced after it was checked by one of 64 MiB is read to its 5 MiB cap and left out", async () => {
    const key = `${unique("logo-endless")}.png`;
    const branding = { color: "#112233", logo: { connectionId: hostileConnection, bucket: HOSTILE_BUCKET, key } };
    const patched = await call("PATCH", `/v1/projects/${t.projectId}`, { key: t.workspaceKey, body: { branding } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const signing = inject("s3");
    const put = (name: string) => presign(signing, "PUT", t.bucket, `${unique("out")}/${name}`);
    const res = await call<Job>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: {
        serviceType: "clip_generation",
        input: {
          sourceType: "s3_presigned",
          textSourceId: (await completedTranscript(t, 3)).textSourceId,
          sourceUrl: await presign(signing, "GET", t.bucket, await putSource(`${unique("presigned")}/talk.mp4`, t.bucket)),
          outputUrls: { video: [await put("clip-1")], poster: [await put("poster-1")] },
          options: { maxClips: 1, layout: "horizontal_in_vertical", fillStyle: "branding" },
        },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const task = await fakeRunner.leaseWhenReady(res.body.data.jobId, ["clip_generation"]);
    const { result: handed, read } = await bytesReadDuring(() => fakeRunner.call<BrandLogoHandover>(task, BRAND_LOGO_CALL, {}));
    expect(handed.status, JSON.stringify(handed.body)).toBe(200);
    expect(handed.body.data).toEqual({ logo: null, note: `left out: the logo is more than ${MAX_LOGO_BYTES} bytes` });
    expect(read).toBeLessThan(MAX_LOGO_BYTES + 256 * 1024);
    await fakeRunner.fail(task, "processing_failed", false);
  });
});
