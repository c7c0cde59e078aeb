import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Client, S3Error } from "../../contracts/s3-client";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { rejectionOf } from "../support/rejection";

const BUCKET = "media-in";
let s3: LocalS3;

beforeAll(async () => {
  s3 = await startLocalS3({ buckets: [BUCKET] });
});
afterAll(async () => {
  await s3.close();
});

function client(overrides: { accessKeyId?: string; secretAccessKey?: string } = {}): S3Client {
  return new S3Client({
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    accessKeyId: overrides.accessKeyId ?? s3.accessKeyId,
    secretAccessKey: overrides.secretAccessKey ?? s3.secretAccessKey,
  });
}

const failureOf = (p: Promise<unknown>) => rejectionOf(p, S3Error);

describe("S3Client against the local S3", () => {
  it("checkBucket succeeds on an existing bucket", async () => {
    await expect(client().checkBucket(BUCKET)).resolves.toBeUndefined();
  });

  it("checkBucket fails with 404 on a missing bucket", async () => {
    const err = await failureOf(client().checkBucket("no-such-bucket"));
    expect(err.status).toBe(404);
  });

  it("putObject then getObject returns the same bytes and content type", async () => {
    await client().putObject(BUCKET, "dir/hello world.txt", "héllo", "text/plain; charset=utf-8");
    const res = await client().getObject(BUCKET, "dir/hello world.txt");
    expect(await res.text()).toBe("héllo");
    expect(res.headers.get("content-type")).toContain("text/plain");
  });

  it("probeObject reads only the requested range and reports the full size", async () => {
    await client().putObject(BUCKET, "range.bin", new Uint8Array(10_000).fill(7));
    const probe = await client().probeObject(BUCKET, "range.bin", 100);
    expect(probe.head.byteLength).toBe(100);
    expect(probe.size).toBe(10_000);
  });

  it("headObject gives the size of an existing object and null for a missing one", async () => {
    await client().putObject(BUCKET, "head.txt", "12345");
    expect(await client().headObject(BUCKET, "head.txt")).toMatchObject({ size: 5 });
    expect(await client().headObject(BUCKET, "missing.txt")).toBeNull();
  });

  it("deleteObject removes the object and tolerates a missing one", async () => {
    await client().putObject(BUCKET, "gone.txt", "x");
    await client().deleteObject(BUCKET, "gone.txt");
    expect(await client().headObject(BUCKET, "gone.txt")).toBeNull();
    await expect(client().deleteObject(BUCKET, "gone.txt")).resolves.toBeUndefined();
  });

  it("getObject of a missing key fails with 404 NoSuchKey", async () => {
    const err = await failureOf(client().getObject(BUCKET, "nothing-here"));
    expect(err.status).toBe(404);
    expect(err.s3Code).toBe("NoSuchKey");
  });

  it("rejects a wrong secret key with 403 SignatureDoesNotMatch", async () => {
    const err = await failureOf(client({ secretAccessKey: "not-the-secret" }).getObject(BUCKET, "dir/hello world.txt"));
    expect(err.status).toBe(403);
    expect(err.s3Code).toBe("SignatureDoesNotMatch");
  });

  it("checkBucket fails with 403 for a wrong secret key", async () => {
    const err = await failureOf(client({ secretAccessKey: "not-the-secret" }).checkBucket(BUCKET));
    expect(err.status).toBe(403);
  });

  it("rejects an unknown access key id with 403 InvalidAccessKeyId", async () => {
    const err = await failureOf(client({ accessKeyId: "NOBODY" }).putObject(BUCKET, "x.txt", "x"));
    expect(err.status).toBe(403);
    expect(err.s3Code).toBe("InvalidAccessKeyId");
  });

  it("rejects unsigned requests", async () => {
    const res = await fetch(`${s3.endpoint}/${BUCKET}/dir/hello%20world.txt`);
    expect(res.status).toBe(403);
  });
});
