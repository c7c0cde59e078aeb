import { and, eq, max } from "drizzle-orm";
import type { Job } from "../../contracts/job";
import { TERMINAL_STATUSES } from "../../contracts/service-types";
import { jobSnapshot, type WebhookMessage } from "../../durable-objects/messages";
import type { Db } from "../db/client";
import { webhookDeliveries } from "../db/schema";
import type { Env } from "../env";
import { conflict, notFound } from "../errors";
import { admitAttempt, type BackoffRule } from "../platform/rate-limit";

/**
 * Re-sending a webhook event (the console's replay button, `POST …/webhook-deliveries/{id}/replay`).
 * Only a finished job's event can be re-sent: its payload carries the job, and a finished job no
 * longer changes, so the job as it is now is the job the event described. An earlier event
 * (`queued`, `processing`) described a job that has moved on since; re-sending it would tell the
 * receiver something false. The replay keeps the event's `webhook-id` (receivers deduplicate on it,
 * as Standard Webhooks asks) and continues its attempt numbering.
 *
 * Each replay makes requests to a URL the customer chose, from the operator's addresses: replays are
 * bounded per event and per project (429 `rateLimited` with Retry-After above either), and each has
 * a small attempt budget of its own rather than the first delivery's 20.
 */
export const REPLAY_LIMITS = {
  perEvent: { limit: 5, windowMs: 60 * 60 * 1000 },
  perProject: { limit: 100, windowMs: 60 * 60 * 1000 },
  /** Attempts one replay makes before `gave_up` (retried with the usual backoff: 30 s, 60 s, 2 min, 4 min). */
  maxAttempts: 5,
} as const;

/** `limit` attempts back to back, then a wait of the whole window before the next. */
const perWindow = (r: { limit: number; windowMs: number }): BackoffRule => ({
  freeAttempts: r.limit,
  baseDelayMs: r.windowMs,
  maxDelayMs: r.windowMs,
  windowMs: r.windowMs,
});

export async function replayDelivery(env: Env, db: Db, job: Job, deliveryId: string) {
  const delivery = await db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.jobId, job.jobId)))
    .get();
  if (!delivery) throw notFound(`webhook delivery not found: ${deliveryId}`, [{ path: "deliveryId", issue: `notFound:${deliveryId}` }]);
  if (!(TERMINAL_STATUSES as readonly string[]).includes(delivery.event) || delivery.event !== job.status) {
    throw conflict(
      `only a finished job's final event can be re-sent: this delivery carried ${delivery.event}, and the job is ${job.status} now`,
      [{ path: "deliveryId", issue: `event:${delivery.event}` }],
    );
  }
  const last = await db
    .select({ attempt: max(webhookDeliveries.attempt) })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.eventId, delivery.eventId))
    .get();
  const offset = last?.attempt ?? delivery.attempt;
  // Counted only for a replay that would be sent: refusals above (404, 409) cost nothing.
  await admitAttempt(env.DB, [
    { key: `webhook-replay:event:${delivery.eventId}`, rule: perWindow(REPLAY_LIMITS.perEvent) },
    { key: `webhook-replay:project:${job.projectId}`, rule: perWindow(REPLAY_LIMITS.perProject) },
  ]);
  const message: WebhookMessage = {
    eventId: delivery.eventId,
    jobId: job.jobId,
    projectId: job.projectId,
    event: job.status,
    job: jobSnapshot(job),
    occurredAt: job.completedAt ?? job.updatedAt,
    attemptOffset: offset,
    maxAttempts: REPLAY_LIMITS.maxAttempts,
  };
  await env.WEBHOOK_QUEUE.send(message);
  return { deliveryId, eventId: delivery.eventId, event: delivery.event, replayed: true, firstAttempt: offset + 1 };
}
