import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { S3Client } from "../../contracts/s3-client";
import { BucketStore } from "../../gpu-runner/object-store";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";

/**
 * The runner's bucket store writes files as the presigned one does: streamed from disk with their
 * length, signed with `UNSIGNED-PAYLOAD` so the body is read once, as sent.
 */

const BUCKET = "customer";
let s3: LocalS3;
let client: S3Client;
let dir: string;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
  client = new S3Client({ ...s3, forcePathStyle: true });
  dir = await mkdtemp(path.join(os.tmpdir(), "bucket-store-"));
});

afterAll(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

afterEach(() => vi.restoreAllMocks());

describe("the bucket store", () => {
  it("uploads a file as a stream body with its Content-Length, never read whole into memory", async () => {
    const file = path.join(dir, "clip.mp4");
    const size = 3 * 1024 * 1024 + 17;
    await writeFile(file, Buffer.alloc(size, 5));
    const spy = vi.spyOn(globalThis, "fetch");
    const key = await new BucketStore(client, BUCKET, { video: "out/clip-01.mp4" }, { maxBytes: 1024 ** 3, minFreeDiskBytes: 0 }).upload(
      "video",
      { path: file },
      "video/mp4",
    );

    const [, init] = spy.mock.calls[0] as [string, RequestInit];
    expect(init.body).toBeInstanceOf(ReadableStream);
    const headers = new Headers(init.headers);
    expect(headers.get("content-length")).toBe(String(size));
    expect(headers.get("x-amz-content-sha256")).toBe("UNSIGNED-PAYLOAD");
    // undici tees (and so buffers) a stream body it might have to resend on a redirect, unless told it never will.
    expect({ redirect: init.redirect, window: init.window }).toEqual({ redirect: "error", window: null });
    expect(key).toBe("out/clip-01.mp4");
    expect((await client.headObject(BUCKET, "out/clip-01.mp4"))?.size).toBe(size);
  });
});
