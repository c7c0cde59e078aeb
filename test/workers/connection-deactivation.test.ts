import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { SAFETY_FINAL_CODES } from "../../contracts/services/types";
import { projectStorageGrant } from "../../worker/storage/scratch";
import { StorageConnectionInactive } from "../../worker/storage/connections";
import { call, expectError } from "./helpers/api";
import { signedIn, SITE } from "./helpers/console";
import { fakeRunner, getJob, submitTranscription, transcriptionBody, waitFor } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createConnection, createTenant, unique, type Tenant } from "./helpers/tenant";
import { SHORT_CACHE_TTL_MS } from "../../worker/platform/short-cache";
import { completedTranscript, TRANSCRIPTION_HANDLER } from "./helpers/transcripts";

/**
 * A deactivated storage connection is not used at run time (review L4): jobs accepted before the
 * deactivation fail with `storage_connection_inactive` instead of receiving its credentials, and
 * the console no longer streams through it.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});

/** A fresh connection of the tenant and the tenant seen through it, so deactivating it leaves the others. */
async function withOwnConnection(): Promise<Tenant> {
  return { ...t, connectionId: await createConnection(t.projectKey) };
}

async function deactivate(connectionId: string): Promise<void> {
  const res = await call("POST", `/v1/storage-connections/${connectionId}/deactivate`, { key: t.projectKey });
  if (res.status !== 200) throw new Error(`deactivate failed: ${JSON.stringify(res.body)}`);
}

/** Keeps leasing as a runner would until the job has failed; every lease must come back empty. */
async function failedWhileLeasing(tenant: Tenant, jobId: string, handlers: string[]): Promise<Job> {
  return waitFor(`job ${jobId} to fail`, async () => {
    expect(await fakeRunner.lease(handlers)).toBeNull();
    const job = await getJob(tenant, jobId);
    return job.status === "failed" ? job : null;
  });
}

describe("deactivated connections at run time", () => {
  it("storage_connection_inactive is a final failure code of every service", () => {
    expect(SAFETY_FINAL_CODES).toContain("storage_connection_inactive");
  });

  it("a queued job whose connection was deactivated fails storage_connection_inactive, and no runner receives its credentials", async () => {
    const own = await withOwnConnection();
    const job = await submitTranscription(own);
    await deactivate(own.connectionId);
    const failed = await failedWhileLeasing(own, job.jobId, TRANSCRIPTION_HANDLER);
    expect(failed.error).toEqual({ code: "storage_connection_inactive", message: expect.stringContaining(own.connectionId) });
    expect(failed.attemptCount).toBe(0);
  });

  it("deactivated outside this isolate, a connection still passes a create's check within the cache's TTL, and that job fails at its lease; after the TTL the create is refused", async () => {
    const own = await withOwnConnection();
    await submitTranscription(own);
    // As another isolate (or the operator's SQL) would: this isolate's connection cache is not told.
    await env.DB.prepare("UPDATE storage_connections SET status = 'inactive' WHERE id = ?").bind(own.connectionId).run();
    const passed = await submitTranscription(own);
    const failed = await failedWhileLeasing(own, passed.jobId, TRANSCRIPTION_HANDLER);
    expect(failed.error?.code).toBe("storage_connection_inactive");
    await new Promise((r) => setTimeout(r, SHORT_CACHE_TTL_MS + 200));
    const refused = await call("POST", "/v1/jobs", {
      key: own.projectKey,
      body: transcriptionBody(own, await putSource(`${unique("src")}/clip.mp4`)),
    });
    expectError(refused, 422, "validationError");
    expect(refused.body.error?.details).toEqual([{ path: "input.connectionId", issue: "connectionInactive" }]);
  });

  it("a clip job's in-Worker hand-over step fails storage_connection_inactive when its connection was deactivated", async () => {
    const own = await withOwnConnection();
    const { textSourceId } = await completedTranscript(own, 2);
    const created = await call<Job>("POST", "/v1/jobs", {
      key: t.projectKey,
      body: { serviceType: "clip_generation", input: { textSourceId, options: { maxClips: 1 } } },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await deactivate(own.connectionId);
    const failed = await failedWhileLeasing(own, created.body.data.jobId, ["clip_generation"]);
    expect(failed.error?.code).toBe("storage_connection_inactive");
  });

  it("the grant for a deactivated connection is refused, not handed out", async () => {
    const own = await withOwnConnection();
    await deactivate(own.connectionId);
    await expect(projectStorageGrant(env, t.projectId, own.connectionId, t.bucket)).rejects.toBeInstanceOf(StorageConnectionInactive);
  });
});

describe("console streaming through a deactivated connection", () => {
  it("the transcript's media is no longer streamed once its connection is deactivated", async () => {
    const own = await withOwnConnection();
    const job = await submitTranscription(own);
    const { browser } = await signedIn(t, "admin");
    const media = (range?: string) =>
      exports.default.fetch(
        new Request(`${SITE}/console/media/transcripts/${String(job.input["textSourceId"])}`, {
          headers: { cookie: browser.cookie, ...(range ? { range } : {}) },
        }),
      );
    expect((await media("bytes=0-3")).status).toBe(206);
    await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    await deactivate(own.connectionId);
    const res = await media("bytes=0-3");
    expect(res.status).toBe(422);
    expectError({ status: res.status, headers: res.headers, body: await res.json() }, 422, "validationError");
  });
});
