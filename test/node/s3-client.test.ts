import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { S3Client, S3Error, S3KeyError, S3RedirectError } from "../../contracts/s3-client";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { HostileServer, hostileServers } from "../support/hostile-server";
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

describe("S3Client against a hostile store", () => {
  const start = hostileServers();
  const at = (server: HostileServer) =>
    new S3Client({ endpoint: server.url, region: "us-east-1", forcePathStyle: true, accessKeyId: "k", secretAccessKey: "s" });

  it.each([
    ["checkBucket", (c: S3Client) => c.checkBucket("media"), "access bucket media"],
    ["probeObject", (c: S3Client) => c.probeObject("media", "a.mp4"), "read media/a.mp4"],
    ["getObject", (c: S3Client) => c.getObject("media", "a.mp4"), "get media/a.mp4"],
    ["headObject", (c: S3Client) => c.headObject("media", "a.mp4"), "head media/a.mp4"],
    ["putObject", (c: S3Client) => c.putObject("media", "a.txt", "text"), "put media/a.txt"],
    ["deleteObject", (c: S3Client) => c.deleteObject("media", "a.txt"), "delete media/a.txt"],
  ])(
    "%s answered 307 fails S3RedirectError naming the operation and status, and the target receives nothing",
    async (_name, call, what) => {
      const target = await start(() => ({ status: 200, body: "inside" }));
      const store = await start(() => ({ redirect: `${target.url}/secret`, status: 307 }));
      const err = await rejectionOf(call(at(store)), S3RedirectError);
      expect(err.message).toBe(`${what} failed: the store answered with a redirect (HTTP 307), which is not followed`);
      expect({ requests: target.requests, connections: target.connections }).toEqual({ requests: 0, connections: 0 });
    },
  );

  it("probeObject reads at most the bytes it asked for from a store that ignores Range and streams forever", async () => {
    const store = await start(() => ({ stream: { bytes: Infinity } }));
    const probe = await at(store).probeObject("media", "a.mp4", 1024);
    expect(probe.head.byteLength).toBe(1024);
    expect(probe.size).toBeNull();
    await expect.poll(() => store.seen[0]?.closed).toBe(true);
    expect(store.bytesSent).toBeLessThan(16 * 1024 * 1024);
  });

  it("probeObject of a store that ignores Range takes the 200's Content-Length as the size", async () => {
    const store = await start(() => ({ stream: { bytes: 5 * 1024 * 1024, declareLength: true } }));
    const probe = await at(store).probeObject("media", "a.mp4", 1024);
    expect({ size: probe.size, head: probe.head.byteLength }).toEqual({ size: 5 * 1024 * 1024, head: 1024 });
  });

  it("an error body of many megabytes is read to a few KiB: the S3 error fails fast and the store stops sending", async () => {
    const store = await start(() => ({ stream: { status: 403, bytes: 256 * 1024 * 1024 } }));
    const err = await rejectionOf(at(store).getObject("media", "a.mp4"), S3Error);
    expect(err.status).toBe(403);
    await expect.poll(() => store.seen[0]?.closed).toBe(true);
    expect(store.bytesSent).toBeLessThan(16 * 1024 * 1024);
  });

  it.each(["..", ".", "../other-bucket/private.mp4", "in/../../other-bucket/x", "in/./x"])(
    "an object key with a dot segment (%s) is refused before any request: URL normalisation would resolve it away",
    async (key) => {
      const store = await start(() => ({ status: 200, body: "x" }));
      await rejectionOf(at(store).getObject("media", key), S3KeyError);
      expect(store.connections).toBe(0);
    },
  );

  it("dots inside a segment, and a literal %2e%2e, stay part of the key", () => {
    const c = client();
    expect(new URL(c.objectUrl(BUCKET, "a/..b/c..")).pathname).toBe(`/${BUCKET}/a/..b/c..`);
    expect(new URL(c.objectUrl(BUCKET, "a/%2e%2e/b")).pathname).toBe(`/${BUCKET}/a/%252e%252e/b`);
  });
});
