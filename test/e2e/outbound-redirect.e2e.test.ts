import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { startE2E, type E2E } from "../support/e2e-stack";
import { HostileServer } from "../support/hostile-server";
import { transcriptOutputUrls } from "../support/presign";

/**
 * H1 through the whole local stack (wrangler dev, the local S3 server, a real runner): a presigned
 * source server that answers the Worker's create-time probe like a store, then answers the runner's
 * download with a redirect into the operator's network (a second loopback listener). The runner
 * does not follow it: the listener receives nothing, not even a connection, and the job fails
 * `redirect_refused` without a retry, with a message that names neither the redirect's target nor the URL's
 * signature. (On a local stack loopback storage is allowed, so only the redirect stands in the way.)
 */
let e: E2E;
let inside: HostileServer;
let source: HostileServer;

beforeAll(async () => {
  e = await startE2E({ runners: 1 });
  inside = await HostileServer.start();
  // The probe asks for one byte (Range); the runner's download asks for everything.
  source = await HostileServer.start((req) =>
    req.headers.range
      ? { status: 206, body: "A", headers: { "content-range": "bytes 0-0/4096", "content-type": "video/mp4" } }
      : { redirect: `${inside.url}/latest/meta-data/` },
  );
});
afterAll(async () => {
  await source?.close();
  await inside?.close();
  await e?.close();
});

describe("a presigned source that redirects the runner's download", () => {
  it("fails the job redirect_refused, and the redirect's target receives nothing", async () => {
    const job = await e.api<Job>("POST", "/v1/jobs", {
      serviceType: "transcription",
      input: {
        sourceType: "s3_presigned",
        sourceUrl: `${source.url}/in/talk.mp4?X-Amz-Signature=not-a-real-signature`,
        outputUrls: await transcriptOutputUrls(e.stack.s3, e.tenant.bucket, "redirected/out/"),
        options: { language: "en" },
      },
    });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 120_000);

    expect(done.status).toBe("failed");
    expect(done.error?.code).toBe("redirect_refused");
    expect(done.error?.message).toMatch(/redirect \(HTTP 302\)/);
    expect(done.error?.message).not.toContain(inside.url.replace("http://", ""));
    expect(done.error?.message).not.toContain("not-a-real-signature");
    // One probe, one download: the failure is final, never retried.
    expect(source.seen.map((s) => (s.headers.range ? "probe" : "download"))).toEqual(["probe", "download"]);
    expect({ requests: inside.requests, connections: inside.connections }).toEqual({ requests: 0, connections: 0 });
  });
});
