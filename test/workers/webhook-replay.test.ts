import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import type { WebhookMessage } from "../../durable-objects/messages";
import { deliverWebhook, type DeliveryRecord, type WebhookDeps } from "../../queues/webhook-consumer";
import { getDb } from "../../worker/db/client";
import { REPLAY_LIMITS, replayDelivery } from "../../worker/jobs/webhook-replay";
import { call, expectError } from "./helpers/api";
import { getJob, submitTranscription, waitFor, waitForStatus } from "./helpers/jobs";
import { createTenant, projectKey, type Tenant } from "./helpers/tenant";

/**
 * Re-sending a webhook event (POST /v1/jobs/{jobId}/webhook-deliveries/{deliveryId}/replay): only a
 * finished job's final event, with the same webhook-id, its attempts numbered after the earlier ones.
 * The project's webhook URL is a public name the test environment cannot reach, so every attempt is
 * recorded as failed: what matters here is that attempts are made and numbered.
 */

interface Delivery {
  deliveryId: string;
  eventId: string;
  event: string;
  attempt: number;
}

let t: Tenant;
let other: Tenant;
let jobId: string;

const deliveries = async (tenant: Tenant, id: string) =>
  (await call<Delivery[]>("GET", `/v1/jobs/${id}/webhook-deliveries`, { key: tenant.projectKey })).body.data ?? [];
const deliveryOf = (id: string, event: string) =>
  waitFor(`a ${event} delivery of ${id}`, async () => (await deliveries(t, id)).find((d) => d.event === event));
const replay = (tenant: Tenant, id: string, deliveryId: string, key = tenant.projectKey) =>
  call<{ eventId: string; firstAttempt: number }>("POST", `/v1/jobs/${id}/webhook-deliveries/${deliveryId}/replay`, { key });

beforeAll(async () => {
  [t, other] = await Promise.all([createTenant(), createTenant()]);
  const set = await call("PATCH", `/v1/projects/${t.projectId}`, {
    key: t.workspaceKey,
    body: { webhookUrl: "https://hooks.example.com/media-jobs" },
  });
  expect(set.status).toBe(200);
  jobId = (await submitTranscription(t)).jobId;
  await call("POST", `/v1/jobs/${jobId}/cancel`, { key: t.projectKey });
  await waitForStatus(t, jobId, "cancelled");
});

describe("webhook replay", () => {
  it("re-sends a finished job's final event with the same webhook-id, numbering its attempts after the earlier ones", async () => {
    const first = await deliveryOf(jobId, "cancelled");
    const res = await replay(t, jobId, first.deliveryId);
    expect(res.status).toBe(202);
    expect(res.body.data.eventId).toBe(first.eventId);
    const before = (await deliveries(t, jobId)).filter((d) => d.eventId === first.eventId).map((d) => d.attempt);
    expect(res.body.data.firstAttempt).toBe(Math.max(...before) + 1);
    const again = await waitFor("the replayed attempt", async () =>
      (await deliveries(t, jobId)).find((d) => d.eventId === first.eventId && d.attempt === res.body.data.firstAttempt),
    );
    expect(again.event).toBe("cancelled");
  });

  it("refuses an earlier event of the job (it described a job that has moved on): 409", async () => {
    const queued = await deliveryOf(jobId, "queued");
    expectError(await replay(t, jobId, queued.deliveryId), 409, "conflict");
  });

  it("another project's delivery is 404, as if it did not exist", async () => {
    const first = await deliveryOf(jobId, "cancelled");
    expectError(await replay(other, jobId, first.deliveryId), 404, "notFound");
  });

  it("needs the webhook:replay permission", async () => {
    const first = await deliveryOf(jobId, "cancelled");
    const readOnly = await projectKey(t, ["job:read"]);
    expectError(await replay(t, jobId, first.deliveryId, readOnly.secret), 403, "forbidden");
  });
});

describe("webhook replay is bounded", () => {
  /** A job of its own, cancelled: its final event has not been replayed yet. */
  async function cancelledJob(): Promise<{ job: Job; deliveryId: string }> {
    const id = (await submitTranscription(t)).jobId;
    await call("POST", `/v1/jobs/${id}/cancel`, { key: t.projectKey });
    const job = await waitForStatus(t, id, "cancelled");
    return { job, deliveryId: (await deliveryOf(id, "cancelled")).deliveryId };
  }

  it(`at most ${REPLAY_LIMITS.perEvent.limit} replays of one event an hour; the next is 429 rateLimited with Retry-After`, async () => {
    const { job, deliveryId } = await cancelledJob();
    for (let i = 0; i < REPLAY_LIMITS.perEvent.limit; i++) expect((await replay(t, job.jobId, deliveryId)).status).toBe(202);
    const refused = await replay(t, job.jobId, deliveryId);
    expectError(refused, 429, "rateLimited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3600);
  });

  it(`at most ${REPLAY_LIMITS.perProject.limit} replays an hour in one project, whichever its events`, async () => {
    const { job, deliveryId } = await cancelledJob();
    // The project's hour already holds its limit (as if its other events had been replayed).
    const { limit, windowMs } = REPLAY_LIMITS.perProject;
    const now = Date.now();
    await env.DB.prepare(
      `INSERT OR REPLACE INTO rate_limits (key, attempts, blocked_until, last_attempt_at, expires_at, free_attempts, base_delay_ms, max_delay_ms, window_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
      .bind(`webhook-replay:project:${t.projectId}`, limit, now + windowMs, now, now + windowMs, limit, windowMs, windowMs, windowMs)
      .run();
    try {
      expectError(await replay(t, job.jobId, deliveryId), 429, "rateLimited");
    } finally {
      await env.DB.prepare("DELETE FROM rate_limits WHERE key = ?").bind(`webhook-replay:project:${t.projectId}`).run();
    }
  });

  it("a refused replay (409) does not count against the limit", async () => {
    const { job } = await cancelledJob();
    const queued = await deliveryOf(job.jobId, "queued");
    for (let i = 0; i < REPLAY_LIMITS.perEvent.limit + 1; i++) expectError(await replay(t, job.jobId, queued.deliveryId), 409, "conflict");
    const final = await deliveryOf(job.jobId, "cancelled");
    expect((await replay(t, job.jobId, final.deliveryId)).status).toBe(202);
  });

  it(`a replay's message carries a budget of ${REPLAY_LIMITS.maxAttempts} attempts, not the first delivery's`, async () => {
    const { job, deliveryId } = await cancelledJob();
    const sent: WebhookMessage[] = [];
    const capture = { ...env, WEBHOOK_QUEUE: { send: async (m: WebhookMessage) => void sent.push(m) } } as unknown as typeof env;
    await replayDelivery(capture, getDb(env.DB), await getJob(t, job.jobId), deliveryId);
    expect(sent[0]?.maxAttempts).toBe(REPLAY_LIMITS.maxAttempts);
    expect(REPLAY_LIMITS.maxAttempts).toBeLessThan(DEFAULT_SETTINGS.webhooks.maxAttempts);
  });

  it("a replay gives up after its own budget of attempts", async () => {
    const recorded: DeliveryRecord[] = [];
    const deps: WebhookDeps = {
      settings: async () => DEFAULT_SETTINGS,
      environment: "local",
      destination: async () => ({ url: "https://hooks.example.com/media-jobs", secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] }),
      jobInput: async () => ({}),
      record: async (r) => void recorded.push(r),
    };
    const { job } = await cancelledJob();
    const { input: _input, ...snapshot } = job;
    const message: WebhookMessage = {
      eventId: `msg_${job.jobId}_9`,
      jobId: job.jobId,
      projectId: job.projectId,
      event: "cancelled",
      job: snapshot,
      occurredAt: job.updatedAt,
      attemptOffset: 3,
      maxAttempts: REPLAY_LIMITS.maxAttempts,
    };
    // The test network answers the public receiver 502: every attempt fails.
    expect(await deliverWebhook(deps, message, REPLAY_LIMITS.maxAttempts - 1)).toMatchObject({ kind: "retry" });
    expect(await deliverWebhook(deps, message, REPLAY_LIMITS.maxAttempts)).toEqual({ kind: "done" });
    expect(recorded.map((r) => [r.attempt, r.outcome])).toEqual([
      [3 + REPLAY_LIMITS.maxAttempts - 1, "failed"],
      [3 + REPLAY_LIMITS.maxAttempts, "gave_up"],
    ]);
  });
});
