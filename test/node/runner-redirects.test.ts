import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StorageGrant } from "../../contracts/runner-protocol";
import { StepFailure } from "../../contracts/step-failure";
import { BucketStore, PresignedStore, SOURCE, type DownloadLimits } from "../../gpu-runner/object-store";
import { openStorage, type StorageGuard } from "../../gpu-runner/storage";
import { HostileServer, hostileServers } from "../support/hostile-server";
import { rejectionOf } from "../support/rejection";

/**
 * No fetch of a server the customer names follows a redirect: bucket and presigned reads and writes
 * answered 3xx fail `redirect_refused` (final), the message names the operation and the status only,
 * and the redirect's target — a second loopback listener standing in for the operator's network —
 * receives nothing, not even a connection. A 307 never re-sends a PUT's body.
 */

const LOOPBACK: StorageGuard = { allowLoopback: true };
const LIMITS: DownloadLimits = { maxBytes: 1024 ** 3, minFreeDiskBytes: 0 };
const signal = () => new AbortController().signal;

let dir: string;
let target: HostileServer;
const start = hostileServers();

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "runner-redirects-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The customer's server, answering every request with a redirect to a fresh bystander listener. */
async function redirecting(status = 302): Promise<HostileServer> {
  target = await start();
  return start(() => ({ redirect: `${target.url}/latest/meta-data/`, status }));
}

const grant = (endpoint: string): StorageGrant => ({
  connectionId: "stc_t",
  endpoint,
  region: "us-east-1",
  forcePathStyle: true,
  accessKeyId: "k",
  secretAccessKey: "s",
  bucket: "media",
});

async function bucketStore(endpoint: string): Promise<BucketStore> {
  return new BucketStore(await openStorage(grant(endpoint), LOOPBACK), "media", { source: "in/talk.mp4", text: "out/t.txt" }, LIMITS);
}

function presignedStore(url: string): PresignedStore {
  return new PresignedStore(
    { sourceUrl: `${url}/in/talk.mp4?X-Amz-Signature=abc`, outputUrls: { text: `${url}/out/t.txt?X-Amz-Signature=def` } },
    {
      guard: LOOPBACK,
      limits: LIMITS,
    },
  );
}

function expectRefusedRedirect(err: StepFailure, status: number | null): void {
  expect({ code: err.code, retryable: err.retryable }).toEqual({ code: "redirect_refused", retryable: false });
  if (status !== null) expect(err.message).toContain(`HTTP ${status}`);
  expect(err.message).not.toContain(target.url.replace("http://", ""));
  expect(err.message).not.toContain("meta-data");
  expect(err.message).not.toMatch(/X-Amz-Signature/);
  expect({ requests: target.requests, connections: target.connections }).toEqual({ requests: 0, connections: 0 });
}

describe("the runner refuses redirects from a customer's servers", () => {
  it("a bucket source whose GET answers 302 fails redirect_refused, and the redirect's target receives nothing", async () => {
    const customer = await redirecting(302);
    const err = await rejectionOf((await bucketStore(customer.url)).download(SOURCE, path.join(dir, "bucket-302"), signal()), StepFailure);
    expectRefusedRedirect(err, 302);
    expect(err.message).toContain("media/in/talk.mp4");
  });

  it("a presigned source whose GET answers 302 fails redirect_refused, and the redirect's target receives nothing", async () => {
    const customer = await redirecting(302);
    const err = await rejectionOf(presignedStore(customer.url).download(SOURCE, path.join(dir, "presigned-302"), signal()), StepFailure);
    expectRefusedRedirect(err, 302);
    expect(err.message).toContain("reading the source");
  });

  it.each([307, 308])("a bucket PUT of text answered %i is not re-sent: the target receives no body", async (status) => {
    const customer = await redirecting(status);
    const err = await rejectionOf((await bucketStore(customer.url)).upload("text", "a transcript", "text/plain"), StepFailure);
    expectRefusedRedirect(err, status);
    expect(err.message).toContain("upload of media/out/t.txt");
  });

  it("a bucket PUT of a file answered 307 is not re-sent: the target receives no body", async () => {
    const customer = await redirecting(307);
    const file = path.join(dir, "clip.bin");
    await writeFile(file, Buffer.alloc(256 * 1024, 1));
    const err = await rejectionOf((await bucketStore(customer.url)).upload("text", { path: file }, "video/mp4"), StepFailure);
    expectRefusedRedirect(err, null);
  });

  it.each([307, 308])("a presigned PUT of text answered %i is not re-sent: the target receives no body", async (status) => {
    const customer = await redirecting(status);
    const err = await rejectionOf(presignedStore(customer.url).upload("text", "a transcript", "text/plain"), StepFailure);
    expectRefusedRedirect(err, status);
    expect(err.message).toContain("writing output text");
  });

  it("a presigned PUT of a file answered 307 is not re-sent: the target receives no body", async () => {
    const customer = await redirecting(307);
    const file = path.join(dir, "clip2.bin");
    await writeFile(file, Buffer.alloc(256 * 1024, 2));
    const err = await rejectionOf(presignedStore(customer.url).upload("text", { path: file }, "video/mp4"), StepFailure);
    expectRefusedRedirect(err, null);
  });
});

describe("error bodies from a customer's server are read to a few KiB, never whole", () => {
  const HUGE = 256 * 1024 * 1024;
  const refusing = () => start(() => ({ stream: { status: 403, bytes: HUGE, headers: { "content-type": "application/xml" } } }));

  it("a bucket read refused with a 256 MiB body fails source_access_denied having taken a few KiB of it", async () => {
    const customer = await refusing();
    const err = await rejectionOf((await bucketStore(customer.url)).download(SOURCE, path.join(dir, "refused"), signal()), StepFailure);
    expect(err.code).toBe("source_access_denied");
    await expect.poll(() => customer.seen[0]?.closed).toBe(true);
    // What the socket's buffers took before the client hung up: far from the body's 256 MiB.
    expect(customer.bytesSent).toBeLessThan(16 * 1024 * 1024);
  });

  it("a presigned read refused with a 256 MiB body fails source_access_denied having taken a few KiB of it", async () => {
    const customer = await refusing();
    const err = await rejectionOf(presignedStore(customer.url).download(SOURCE, path.join(dir, "refused2"), signal()), StepFailure);
    expect(err.code).toBe("source_access_denied");
    await expect.poll(() => customer.seen[0]?.closed).toBe(true);
    expect(customer.bytesSent).toBeLessThan(16 * 1024 * 1024);
  });
});
