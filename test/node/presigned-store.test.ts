import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { PresignedGrant } from "../../contracts/presigned";
import { S3Client } from "../../contracts/s3-client";
import { StepFailure } from "../../contracts/step-failure";
import { PresignedStore, SOURCE } from "../../gpu-runner/object-store";
import type { StorageGuard } from "../../gpu-runner/storage";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { presign, type PresignOptions } from "../support/presign";
import { rejectionOf } from "../support/rejection";

/**
 * The runner's presigned store against the local S3 server (which checks query signatures and
 * expiry): GET and PUT through the URLs, streamed, with the documented failure codes, and never a
 * signature in a message.
 */

const BUCKET = "customer";
const LOOPBACK: StorageGuard = { allowLoopback: true };
const LIMITS = { maxBytes: 1024 * 1024 * 1024, minFreeDiskBytes: 0 };
let s3: LocalS3;
let client: S3Client;
let dir: string;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = new S3Client({ ...s3, forcePathStyle: true });
  dir = await mkdtemp(path.join(os.tmpdir(), "presigned-store-"));
  await client.putObject(BUCKET, "in/talk.mp4", new TextEncoder().encode("the source bytes"), "video/mp4");
});

afterAll(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const url = (method: "GET" | "PUT", key: string, opts?: PresignOptions) => presign(s3, method, BUCKET, key, opts);

async function store(outputs: Record<string, string>, extra: Partial<ConstructorParameters<typeof PresignedStore>[1]> = {}) {
  const grant: PresignedGrant = { sourceUrl: await url("GET", "in/talk.mp4"), outputUrls: outputs };
  return new PresignedStore(grant, { guard: LOOPBACK, limits: LIMITS, ...extra });
}

const SIGNATURE = /X-Amz-Signature|X-Amz-Credential/i;
const signal = () => new AbortController().signal;

describe("the presigned store", () => {
  it("downloads the source through its GET URL to a file", async () => {
    const target = path.join(dir, "source");
    const bytes = await (await store({})).download(SOURCE, target, signal());
    expect(bytes).toBe(16);
    expect(await readFile(target, "utf8")).toBe("the source bytes");
  });

  it("uploads text through the output's PUT URL and answers the URL redacted", async () => {
    const s = await store({ fullText: await url("PUT", "out/full.txt") });
    const location = await s.upload("fullText", "hello transcript", "text/plain");
    expect(location).toMatch(/\/customer\/out\/full\.txt\?…redacted$/);
    expect(await (await client.getObject(BUCKET, "out/full.txt")).text()).toBe("hello transcript");
  });

  it("sends a file as a stream with its Content-Length, never read whole into memory", async () => {
    const file = path.join(dir, "large.bin");
    await writeFile(file, Buffer.alloc(3 * 1024 * 1024, 7));
    const spy = vi.fn(fetch);
    const s = await store({ video: await url("PUT", "out/large.bin") }, { fetch: spy });
    await s.upload("video", { path: file }, "application/octet-stream");
    const init = spy.mock.calls[0]?.[1] as RequestInit & { duplex?: string };
    expect(init.body).toBeInstanceOf(ReadableStream);
    expect(init.duplex).toBe("half");
    // undici tees (and so buffers) a stream body it might have to resend on a redirect, unless told it never will.
    expect({ redirect: init.redirect, window: init.window }).toEqual({ redirect: "error", window: null });
    expect(new Headers(init.headers).get("content-length")).toBe(String(3 * 1024 * 1024));
    expect((await client.headObject(BUCKET, "out/large.bin"))?.size).toBe(3 * 1024 * 1024);
  });

  it("a URL that answers 403 'Request has expired' mid-job fails presigned_url_expired, not retryable", async () => {
    const signedAt = new Date(Date.now() - 2 * 3600_000);
    const stale = await url("PUT", "out/late.srt", { signedAt, expiresSec: 3600 });
    // The runner's clock still thinks the URL is valid: only the store's answer can tell.
    const s = await store({ srt: stale }, { now: () => signedAt.getTime() });
    const err = await rejectionOf(s.upload("srt", "1\n", "application/x-subrip"), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "presigned_url_expired", retryable: false });
    expect(err.message).not.toMatch(SIGNATURE);
  });

  it("a URL whose stated expiry has passed fails presigned_url_expired without connecting", async () => {
    const spy = vi.fn(fetch);
    const stale = await url("PUT", "out/late.vtt", { signedAt: new Date(Date.now() - 2 * 3600_000), expiresSec: 3600 });
    const s = await store({ vtt: stale }, { fetch: spy });
    const err = await rejectionOf(s.upload("vtt", "WEBVTT\n", "text/vtt"), StepFailure);
    expect(err.code).toBe("presigned_url_expired");
    expect(spy).not.toHaveBeenCalled();
  });

  it("an output URL refused with 403 for another reason fails output_access_denied, not retryable", async () => {
    const forged = await presign({ ...s3, secretAccessKey: "wrong" }, "PUT", BUCKET, "out/forged.json");
    const err = await rejectionOf((await store({ segments: forged })).upload("segments", "{}", "application/json"), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "output_access_denied", retryable: false });
    expect(err.message).toContain("output segments");
    expect(err.message).not.toMatch(SIGNATURE);
  });

  it("a source URL refused with 403 fails source_access_denied, not retryable", async () => {
    const forged = await presign({ ...s3, secretAccessKey: "wrong" }, "GET", BUCKET, "in/talk.mp4");
    const s = new PresignedStore({ sourceUrl: forged, outputUrls: {} }, { guard: LOOPBACK, limits: LIMITS });
    const err = await rejectionOf(s.download(SOURCE, path.join(dir, "denied"), signal()), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "source_access_denied", retryable: false });
  });

  it("a host that resolves to a private address is refused before connecting", async () => {
    const spy = vi.fn(fetch);
    const grant = { sourceUrl: "https://media.customer.example/in/talk.mp4?X-Amz-Signature=abc", outputUrls: {} };
    const s = new PresignedStore(grant, { guard: { allowLoopback: false, resolve: async () => ["10.0.0.7"] }, limits: LIMITS, fetch: spy });
    const err = await rejectionOf(s.download(SOURCE, path.join(dir, "never"), signal()), StepFailure);
    expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "storage_endpoint_refused", retryable: false });
    expect(spy).not.toHaveBeenCalled();
  });
});
