import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { createHmac } from "node:crypto";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { Preset, Workflow } from "../../contracts/workflows";
import worker from "../../worker/index";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, getJob, patchSettings } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Upload triggers (issue 26; docs/api.md "Trigger on upload"): a connection's prefix and preset,
 * the store's event notifications signed with the connection's event secret, one workflow per
 * object version however often the event comes.
 */

let t: Tenant;
let preset: Preset;
let secret: string;
const PREFIX = "incoming/";

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  const p = await call<Preset>("POST", "/v1/presets", {
    key: t.projectKey,
    body: {
      name: "on-upload",
      steps: [
        {
          id: "transcribe",
          serviceType: "transcription",
          input: {
            sourceType: "s3_direct",
            connectionId: "{{trigger.connectionId}}",
            bucket: "{{trigger.bucket}}",
            sourceKey: "{{trigger.key}}",
          },
        },
      ],
    },
  });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  preset = p.body.data;
  const res = await setTriggers([{ bucket: t.bucket, prefix: PREFIX, suffixes: [".mp4"], presetId: preset.presetId }]);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  secret = String(res.body.data["eventSecret"]);
});
afterEach(async () => {
  await cancelUnfinished(t);
});

const setTriggers = (triggers: unknown[]) =>
  call<Record<string, unknown>>("PUT", `/v1/storage-connections/${t.connectionId}/triggers`, { key: t.projectKey, body: { triggers } });

/** The S3 event notification AWS and MinIO send for one new object (its key URL-encoded, as they do). */
function s3Event(key: string, eTag = unique("etag"), eventName = "ObjectCreated:Put") {
  return {
    Records: [
      {
        eventVersion: "2.0",
        eventSource: "aws:s3",
        eventName,
        eventTime: new Date().toISOString(),
        s3: { bucket: { name: t.bucket }, object: { key: encodeURIComponent(key).replace(/%20/g, "+"), size: 1234, eTag } },
      },
    ],
  };
}

const postEvent = (body: unknown, headers: Record<string, string>, connectionId = t.connectionId) =>
  call<{
    received: number;
    started: Array<{ workflowId: string; key: string }>;
    refused: Array<{ workflowId: string; key: string; reason: string }>;
    ignored: Array<{ key: string; reason: string }>;
  }>("POST", `/v1/storage-connections/${connectionId}/events`, {
    rawBody: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

const bearer = () => ({ authorization: `Bearer ${secret}` });

/** Messages through the Worker's queue handler, as the `media-jobs-uploads` queue delivers R2's notifications. */
async function deliverUploadEvents(bodies: unknown[]) {
  const batch = createMessageBatch<unknown>(
    "media-jobs-uploads",
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<never>, env, ctx);
  return getQueueResult(batch, ctx);
}

describe("setting triggers", () => {
  it("the connection's event secret is answered once, when its first triggers are set", async () => {
    expect(secret).toMatch(/^whsec_/);
    const again = await setTriggers([{ bucket: t.bucket, prefix: PREFIX, suffixes: [".mp4"], presetId: preset.presetId }]);
    expect(again.body.data["eventSecret"]).toBeUndefined();
    const got = await call<Record<string, unknown>>("GET", `/v1/storage-connections/${t.connectionId}`, { key: t.projectKey });
    expect(got.body.data["triggers"]).toEqual([
      { bucket: t.bucket, prefix: PREFIX, suffixes: [".mp4"], presetId: preset.presetId, enabled: true },
    ]);
    expect(JSON.stringify(got.body)).not.toContain(secret);
  });

  it("a trigger's bucket must be one of the connection's", async () => {
    const res = await setTriggers([{ bucket: "another-bucket", prefix: "", presetId: preset.presetId }]);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details[0]?.issue).toBe("bucketNotInConnection");
  });

  it("a trigger inside the connection's default output prefix is refused (jobs write there, and nothing there triggers)", async () => {
    const res = await setTriggers([{ bucket: t.bucket, prefix: "svc-media-results/in/", presetId: preset.presetId }]);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details[0]?.issue).toBe("overlapsOutputPrefix");
  });

  it("a trigger's preset must be the project's", async () => {
    expectError(await setTriggers([{ bucket: t.bucket, prefix: "", presetId: "pst_nothere" }]), 404, "notFound");
  });

  it("a preset a trigger uses cannot be deleted (409)", async () => {
    const res = await call("DELETE", `/v1/presets/${preset.presetId}`, { key: t.projectKey });
    expectError(res, 409, "conflict");
    expect(res.body.error?.details[0]?.issue).toBe(`inUseBy:${t.connectionId}`);
  });
});

describe("event notifications", () => {
  it("an unsigned, wrongly signed or unknown-connection notification answers the same 401", async () => {
    const body = s3Event(`${PREFIX}a.mp4`);
    expectError(await postEvent(body, {}), 401, "unauthorized");
    expectError(await postEvent(body, { authorization: "Bearer whsec_wrong" }), 401, "unauthorized");
    expectError(await postEvent(body, bearer(), "stc_nothere"), 401, "unauthorized");
  });

  it("an object created under the prefix starts the preset's workflow for it", async () => {
    const key = await putSource(`${PREFIX}${unique("talk")} one.mp4`);
    const res = await postEvent(s3Event(key), bearer());
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expect(res.body.data.started).toHaveLength(1);
    const w = (await call<Workflow>("GET", `/v1/workflows/${res.body.data.started[0]!.workflowId}`, { key: t.projectKey })).body.data;
    expect(w).toMatchObject({ presetId: preset.presetId, trigger: { connectionId: t.connectionId, bucket: t.bucket, key } });
    const job: Job = await getJob(t, w.steps[0]!.jobId!);
    expect(job.input["sourceKey"]).toBe(key);
    expect(job.createdByLabel).toMatch(/^upload trigger of /);
  });

  it("the same object version notified twice starts one workflow", async () => {
    const key = await putSource(`${PREFIX}${unique("twice")}.mp4`);
    const event = s3Event(key, "etag-twice");
    const first = await postEvent(event, bearer());
    const second = await postEvent(event, bearer());
    expect(second.body.data.started[0]?.workflowId).toBe(first.body.data.started[0]?.workflowId);
    const list = await call<Workflow[]>("GET", "/v1/workflows?limit=100", { key: t.projectKey });
    expect(list.body.data.filter((w) => w.trigger?.key === key)).toHaveLength(1);
  });

  it("an upload whose workflow the preset cannot make is kept as a workflow that failed at once, saying why", async () => {
    const key = await putSource(`${PREFIX}${unique("over-quota")}.mp4`);
    await patchSettings({ quotas: { enterprise: { transcription_jobs: 0 } } });
    let res: Awaited<ReturnType<typeof postEvent>>;
    try {
      res = await postEvent(s3Event(key), bearer());
    } finally {
      await patchSettings({ quotas: { enterprise: { transcription_jobs: null } } });
    }
    expect(res.status).toBe(202);
    expect(res.body.data.started).toEqual([]);
    const refused = res.body.data.refused;
    expect(refused).toHaveLength(1);
    expect(refused[0]!.reason).toMatch(/^quotaExceeded: /);
    const w = (await call<Workflow>("GET", `/v1/workflows/${refused[0]!.workflowId}`, { key: t.projectKey })).body.data;
    expect(w).toMatchObject({ status: "failed", trigger: { key }, error: { code: "workflow_refused", message: refused[0]!.reason } });
    expect(w.steps.map((s) => s.status)).toEqual(["skipped"]);
  });

  it("a notification signed with HMAC-SHA256 of its body is accepted too", async () => {
    const key = await putSource(`${PREFIX}${unique("hmac")}.mp4`);
    const body = JSON.stringify(s3Event(key));
    const sig = createHmac("sha256", secret).update(body).digest("hex");
    const res = await call<{ started: unknown[] }>("POST", `/v1/storage-connections/${t.connectionId}/events`, {
      rawBody: body,
      headers: { "content-type": "application/json", "x-media-jobs-signature": `sha256=${sig}` },
    });
    expect(res.status).toBe(202);
    expect(res.body.data.started).toHaveLength(1);
  });

  it("what jobs write under the default output prefix never starts a workflow, even under a trigger on the whole bucket", async () => {
    await setTriggers([{ bucket: t.bucket, prefix: "", suffixes: [".mp4"], presetId: preset.presetId }]);
    try {
      const res = await postEvent(s3Event("svc-media-results/clips/clip-1.mp4"), bearer());
      expect(res.body.data.started).toEqual([]);
      expect(res.body.data.ignored[0]?.reason).toBe("no trigger matches its bucket and key");
    } finally {
      await setTriggers([{ bucket: t.bucket, prefix: PREFIX, suffixes: [".mp4"], presetId: preset.presetId }]);
    }
  });

  it("an object outside the prefix, with another suffix, or a deletion starts nothing and says why", async () => {
    const res = await postEvent(
      {
        Records: [
          ...s3Event("elsewhere/a.mp4").Records,
          ...s3Event(`${PREFIX}notes.txt`).Records,
          ...s3Event(`${PREFIX}b.mp4`, "e", "ObjectRemoved:Delete").Records,
        ],
      },
      bearer(),
    );
    expect(res.body.data.started).toEqual([]);
    expect(res.body.data.ignored.map((i) => i.reason)).toEqual([
      "no trigger matches its bucket and key",
      "no trigger matches its bucket and key",
      "event ObjectRemoved:Delete starts nothing",
    ]);
  });

  it("an R2 event notification from the Queue starts the workflow as an S3 one does", async () => {
    const key = await putSource(`${PREFIX}${unique("r2")}.mp4`);
    const result = await deliverUploadEvents([
      { action: "PutObject", bucket: t.bucket, object: { key, size: 10, eTag: unique("r2etag") } },
    ]);
    expect(result.explicitAcks).toEqual(["m0"]);
    const list = await call<Workflow[]>("GET", "/v1/workflows?limit=100", { key: t.projectKey });
    expect(list.body.data.filter((w) => w.trigger?.key === key)).toHaveLength(1);
  });

  it("a Queue message R2 could never have sent is acknowledged, not retried", async () => {
    const result = await deliverUploadEvents([{ not: "an R2 event" }]);
    expect(result.explicitAcks).toEqual(["m0"]);
    expect(result.retryMessages).toEqual([]);
  });
});
