import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { ThumbnailResult } from "../../contracts/thumbnails";
import { call, expectError } from "./helpers/api";
import { thumbnailResult } from "./helpers/results";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, usage } from "./helpers/transcripts";
import { env } from "cloudflare:workers";
import type { ThumbnailRunPointer } from "../../worker/db/schema";
import { moveLegacyThumbnails, THUMBNAILS_BLOB_KIND } from "../../worker/services/thumbnail/store";
import { d1Row, expectBlobKey, ownerKeys, storedValue } from "./helpers/blobs";

/**
 * Thumbnails through the Worker: create (size by plan, counts, credits, probes), the transcript
 * hand-over, the runner's result added to the transcript's set (accumulating over runs, idempotent
 * on redelivery), the job's resultSummary and `GET /v1/thumbnails/{transcriptionId}`.
 */

const HANDLER = ["thumbnail"];
let t: Tenant;
let free: Tenant;
let txt: string;
let freeTxt: string;

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  free = await createTenant({ plan: "free" });
  txt = (await completedTranscript(t, 3)).textSourceId;
  freeTxt = (await completedTranscript(free, 3)).textSourceId;
});
// Storage is per file: a job left queued would be the next test's lease.
afterEach(async () => {
  await cancelUnfinished(t);
  await cancelUnfinished(free);
});

async function createThumbnails(tenant: Tenant, input: Record<string, unknown>): Promise<Job> {
  const res = await call<Job>("POST", "/v1/jobs", { key: tenant.projectKey, body: { serviceType: "thumbnail", input } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A result as the runner would send it: `covers` covers and `frames` frame picks. */
async function runToCompletion(tenant: Tenant, job: Job, covers: number, frames: number): Promise<Job> {
  const task = await fakeRunner.leaseWhenReady(job.jobId, HANDLER);
  const result = thumbnailResult(job, covers, frames) as unknown as Record<string, unknown>;
  expect((await fakeRunner.complete(task, result)).status).toBe(200);
  return waitForStatus(tenant, job.jobId, "completed");
}

describe("the runner's thumbnail result is checked against the job", () => {
  /** Completes the job's thumbnail step with its one cover changed by `edit`. */
  async function completeWithCover(edit: (cover: ThumbnailResult["thumbnails"][number], job: Job) => void) {
    const job = await createThumbnails(t, { textSourceId: txt, options: { thumbnailCount: 1, nonAiThumbnailCount: 1 } });
    const task = await fakeRunner.leaseWhenReady(job.jobId, HANDLER);
    const result = thumbnailResult(job, 1, 0);
    edit(result.thumbnails[0]!, job);
    return fakeRunner.complete(task, result as unknown as Record<string, unknown>);
  }

  it("a key outside the job's own folder (another job's thumbnails) is refused with 422", async () => {
    const res = await completeWithCover((c, job) => (c.key = `${String(job.input["resolvedOutputPrefix"])}job_someoneelse/cover-1.jpg`));
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.thumbnails.0.key", issue: "outsideJobPrefix" }]);
  });

  it("a bucket other than the job's is refused with 422", async () => {
    const res = await completeWithCover((c) => (c.bucket = "another-tenants-bucket"));
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.thumbnails.0.bucket", issue: "notTheJobs" }]);
  });

  it("a thumbnail id of another job is refused with 422 (it would shadow that job's entry in the set)", async () => {
    const res = await completeWithCover((c) => (c.thumbnailId = "job_someoneelse-cover-1"));
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.thumbnails.0.thumbnailId", issue: "notTheJobs" }]);
  });
});

describe("thumbnail create", () => {
  it("sizes a free job 1536×1024 (3:2 at 1024) when no ratio is sent, and an enterprise job 1920×1088 (16:9 at 1080)", async () => {
    expect((await createThumbnails(free, { textSourceId: freeTxt })).input["size"]).toEqual({ width: 1536, height: 1024 });
    expect((await createThumbnails(t, { textSourceId: txt })).input["size"]).toEqual({ width: 1920, height: 1088 });
  });

  it("derives the long edge from the ratio and snaps both to multiples of 16 (enterprise 9:16 at 1000 → 1008×1776)", async () => {
    const job = await createThumbnails(t, { textSourceId: txt, options: { ratioWidth: 9, ratioHeight: 16, resolution: 1000 } });
    expect(job.input["size"]).toEqual({ width: 1008, height: 1776 });
  });

  it("fills the counts from the plan's policy and charges one credit per cover", async () => {
    const before = (await usage(free))["thumbnail_credits"] ?? 0;
    const job = await createThumbnails(free, { textSourceId: freeTxt, options: { thumbnailCount: 2 } });
    expect(job.input["options"]).toMatchObject({ thumbnailCount: 2, nonAiThumbnailCount: 3 });
    expect((await usage(free))["thumbnail_credits"]).toBe(before + 2);
  });

  it("writes under {defaultOutputPrefix}/{textSourceId}/thumbnails/ by default", async () => {
    const job = await createThumbnails(t, { textSourceId: txt });
    expect(job.input["resolvedOutputPrefix"]).toBe(`svc-media-results/${txt}/thumbnails/`);
  });

  it("refuses a missing source object with 422 sourceNotFound and charges nothing", async () => {
    const before = (await usage(t))["thumbnail_credits"] ?? 0;
    const res = await call("POST", "/v1/jobs", {
      key: t.projectKey,
      body: {
        serviceType: "thumbnail",
        input: { textSourceId: txt, connectionId: t.connectionId, bucket: t.bucket, sourceKey: "nope.mp4" },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: "input.sourceKey", issue: "sourceNotFound" }]);
    expect((await usage(t))["thumbnail_credits"] ?? 0).toBe(before);
  });
});

describe("thumbnail results", () => {
  it("adds a run's thumbnails to the transcript and summarises the run", async () => {
    const tx = (await completedTranscript(t, 2)).textSourceId;
    const job = await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 2, nonAiThumbnailCount: 2 } });
    const done = await runToCompletion(t, job, 2, 2);
    expect(done.resultSummary).toMatchObject({
      textSourceId: tx,
      thumbnailCount: 2,
      newThumbnailCount: 2,
      nonAiThumbnailCount: 2,
      generated: { engine: "local-compositor", kind: "compositor" },
    });
    const res = await call<{ thumbnails: Array<{ key: string }>; thumbnailCount: number }>("GET", `/v1/thumbnails/${tx}`, {
      key: t.projectKey,
    });
    expect(res.body.data.thumbnailCount).toBe(2);
    expect(res.body.data.thumbnails.map((x) => x.key.split("/").pop())).toEqual([
      "cover-1.jpg",
      "cover-2.jpg",
      "frame-1.jpg",
      "frame-2.jpg",
    ]);
  });

  it("accumulates on a re-run: the second run adds to the set and thumbnailCount is the total", async () => {
    const tx = (await completedTranscript(t, 2)).textSourceId;
    await runToCompletion(t, await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 1 } }), 1, 1);
    const second = await runToCompletion(t, await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 2 } }), 2, 1);
    expect(second.resultSummary).toMatchObject({ thumbnailCount: 3, newThumbnailCount: 2, nonAiThumbnailCount: 1 });
    const res = await call<{ thumbnails: unknown[] }>("GET", `/v1/transcriptions/${tx}`, { key: t.projectKey });
    expect(res.body.data.thumbnails).toHaveLength(5);
  });

  it("a redelivered result adds nothing twice", async () => {
    const tx = (await completedTranscript(t, 2)).textSourceId;
    const job = await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 1 } });
    const task = await fakeRunner.leaseWhenReady(job.jobId, HANDLER);
    const result = thumbnailResult(job, 1, 2) as unknown as Record<string, unknown>;
    await fakeRunner.complete(task, result);
    await fakeRunner.complete(task, result);
    await waitForStatus(t, job.jobId, "completed");
    const res = await call<{ thumbnails: unknown[] }>("GET", `/v1/thumbnails/${tx}`, { key: t.projectKey });
    expect(res.body.data.thumbnails).toHaveLength(3);
  });

  it("GET /v1/thumbnails of another project's transcript is 404", async () => {
    const res = await call("GET", `/v1/thumbnails/${freeTxt}`, { key: t.projectKey });
    expect(res.status).toBe(404);
  });
});

describe("thumbnail policy", () => {
  it("GET /v1/jobs/policy?serviceType=thumbnail names the image engine, sizes and defaults per plan, pro included", async () => {
    const res = await call<Record<string, unknown>>("GET", "/v1/jobs/policy?serviceType=thumbnail");
    expect(res.body.data).toMatchObject({
      maxThumbnailCount: 3,
      imageEngine: "local-compositor",
      plans: {
        free: { defaultThumbnailCount: 1, maxNonAiThumbnailCount: 3, imageSize: { resolution: 1024 } },
        pro: { defaultThumbnailCount: 1 },
        enterprise: { defaultThumbnailCount: 3, maxNonAiThumbnailCount: 5, imageSize: { maxEdge: 3840 } },
      },
    });
  });
});

describe("thumbnail storage", () => {
  type ThumbnailSet = { thumbnailCount: number; frameCount: number; thumbnails: Array<{ thumbnailId: string }> };
  const setOf = async (tx: string) => (await call<ThumbnailSet>("GET", `/v1/thumbnails/${tx}`, { key: t.projectKey })).body.data;
  const runsOf = async (tx: string) => JSON.parse(String((await d1Row("transcripts", tx))["thumbnail_runs"])) as ThumbnailRunPointer[];

  it("keeps each run's thumbnails as one object in R2, the transcript listing the runs with their counts", async () => {
    const tx = (await completedTranscript(t, 2)).textSourceId;
    const job = await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 2 } });
    await runToCompletion(t, job, 2, 1);
    const runs = await runsOf(tx);
    expect(runs).toEqual([{ runId: job.jobId, key: expect.any(String), covers: 2, frames: 1 }]);
    expectBlobKey(runs[0]?.key, t.projectId, THUMBNAILS_BLOB_KIND, tx);
    expect((await d1Row("transcripts", tx))["thumbnails"]).toBe("[]");
    expect(await storedValue(runs[0]!.key)).toEqual((await setOf(tx)).thumbnails);
  });

  it("two runs finishing at once both land, each once", async () => {
    const tx = (await completedTranscript(t, 2)).textSourceId;
    const a = await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 1 } });
    const b = await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 2 } });
    const [ta, tb] = [await fakeRunner.leaseWhenReady(a.jobId, HANDLER), await fakeRunner.leaseWhenReady(b.jobId, HANDLER)];
    const results = [thumbnailResult(a, 1, 2), thumbnailResult(b, 2, 1)] as unknown as Array<Record<string, unknown>>;
    await Promise.all([fakeRunner.complete(ta, results[0]!), fakeRunner.complete(tb, results[1]!), fakeRunner.complete(ta, results[0]!)]);
    await Promise.all([waitForStatus(t, a.jobId, "completed"), waitForStatus(t, b.jobId, "completed")]);
    const set = await setOf(tx);
    expect(set).toMatchObject({ thumbnailCount: 3, frameCount: 3 });
    expect(set.thumbnails.map((x) => x.thumbnailId).sort()).toEqual(
      [...thumbnailResult(a, 1, 2).thumbnails, ...thumbnailResult(b, 2, 1).thumbnails].map((x) => x.thumbnailId).sort(),
    );
    expect((await runsOf(tx)).map((r) => r.runId).sort()).toEqual([a.jobId, b.jobId].sort());
    expect(await ownerKeys(t.projectId, THUMBNAILS_BLOB_KIND, tx)).toHaveLength(2);
  });

  it("reads thumbnails the previous version appended in D1 first, and moves them into R2 once, the set answering the same", async () => {
    const tx = (await completedTranscript(t, 2)).textSourceId;
    await runToCompletion(t, await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 1 } }), 1, 1);
    // As the previous version left it: the run's entries in the D1 array, no run listed, no object.
    const [old] = await runsOf(tx);
    await env.DB.prepare("UPDATE transcripts SET thumbnails = ?, thumbnail_runs = '[]' WHERE id = ?")
      .bind(JSON.stringify(await storedValue(old!.key)), tx)
      .run();
    await env.BLOBS.delete(old!.key);
    await runToCompletion(t, await createThumbnails(t, { textSourceId: tx, options: { thumbnailCount: 2 } }), 2, 0);
    const before = await setOf(tx);
    expect(before).toMatchObject({ thumbnailCount: 3, frameCount: 1 });
    expect(before.thumbnails[0]?.thumbnailId.startsWith(`${old!.runId}-`)).toBe(true);
    expect(await moveLegacyThumbnails(env, tx)).toBe(true);
    expect(await moveLegacyThumbnails(env, tx)).toBe(false);
    expect((await d1Row("transcripts", tx))["thumbnails"]).toBe("[]");
    expect((await runsOf(tx)).map((r) => [r.covers, r.frames])).toEqual([
      [1, 1],
      [2, 0],
    ]);
    expect(await setOf(tx)).toEqual(before);
  });
});
