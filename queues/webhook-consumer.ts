import { Webhook } from "standardwebhooks";
import { newId } from "../contracts/ids";
import type { Settings } from "../contracts/settings";
import { projectWebhookSecret } from "../worker/accounts/service";
import { getDb } from "../worker/db/client";
import { webhookDeliveries } from "../worker/db/schema";
import type { Env } from "../worker/env";
import { nowIso } from "../worker/platform/clock";
import { loadSettings } from "../worker/platform/settings";
import { webhookUrlRefusal } from "../worker/platform/outbound-url";
import type { WebhookMessage } from "./messages";

/**
 * Webhook delivery: one POST per status change, signed per Standard Webhooks (webhook-id,
 * webhook-timestamp, webhook-signature = v1,HMAC-SHA256 with the project's whsec_ secret).
 * The `webhook-id` is the same on every retry so receivers can deduplicate. Failures retry
 * through the queue with exponential backoff; every attempt is recorded and listable per job.
 */

export function webhookPayload(m: WebhookMessage) {
  const ref = m.job.userMetadata?.["customerJobRef"];
  return {
    type: `job.${m.event}`,
    event: m.event,
    eventId: m.eventId,
    occurredAt: m.occurredAt,
    jobId: m.jobId,
    customerJobRef: typeof ref === "string" ? ref : null,
    ...(m.event === "completed" ? { resultSummary: m.job.resultSummary } : {}),
    job: m.job,
  };
}

/** Kept as a named export for tests: the same rule the API applies at create. */
export const deliverable = webhookUrlRefusal;

export function retryDelaySeconds(attempt: number, settings: Settings): number {
  return Math.min(settings.webhooks.retryMaxDelaySeconds, settings.webhooks.retryBaseDelaySeconds * 2 ** Math.max(0, attempt - 1));
}

type Outcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

export async function deliverWebhook(env: Env, m: WebhookMessage, attempt: number): Promise<Outcome> {
  const db = getDb(env.DB);
  const settings = await loadSettings(db);
  const hook = await projectWebhookSecret(db, env.ENCRYPTION_KEY, m.projectId);
  const url = m.job.webhookUrl ?? hook?.url ?? null;
  if (!hook || !url) return { kind: "done" };
  const record = async (outcome: "delivered" | "failed" | "gave_up", responseStatus: number | null, errorMessage: string | null, durationMs: number, nextRetryAt: string | null) => {
    await db
      .insert(webhookDeliveries)
      .values({ id: newId("webhookDelivery"), jobId: m.jobId, projectId: m.projectId, eventId: m.eventId, event: m.event, url, attempt, outcome, responseStatus, errorMessage, durationMs, nextRetryAt, at: nowIso() })
      .onConflictDoNothing();
  };
  const refusal = deliverable(url, settings, env.ENVIRONMENT);
  if (refusal) {
    await record("gave_up", null, refusal.message, 0, null);
    return { kind: "done" };
  }
  const body = JSON.stringify(webhookPayload(m));
  const sentAt = new Date();
  const signature = new Webhook(hook.secret).sign(m.eventId, sentAt, body);
  const started = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "user-agent": "media-jobs-webhooks/1",
        "webhook-id": m.eventId,
        "webhook-timestamp": String(Math.floor(sentAt.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
      signal: AbortSignal.timeout(settings.webhooks.timeoutMs),
      redirect: "manual",
    });
    status = res.status;
    await res.body?.cancel();
    if (!res.ok) error = `receiver answered HTTP ${res.status}`;
  } catch (err) {
    error = err instanceof Error ? err.message : String(err);
  }
  const duration = Date.now() - started;
  if (!error) {
    await record("delivered", status, null, duration, null);
    return { kind: "done" };
  }
  if (attempt >= settings.webhooks.maxAttempts) {
    await record("gave_up", status, error, duration, null);
    return { kind: "done" };
  }
  const delaySeconds = retryDelaySeconds(attempt, settings);
  await record("failed", status, error, duration, new Date(Date.now() + delaySeconds * 1000).toISOString());
  return { kind: "retry", delaySeconds };
}

export async function handleWebhookBatch(batch: MessageBatch<WebhookMessage>, env: Env): Promise<void> {
  for (const msg of batch.messages) {
    try {
      const outcome = await deliverWebhook(env, msg.body, msg.attempts);
      if (outcome.kind === "retry") msg.retry({ delaySeconds: Math.ceil(outcome.delaySeconds) });
      else msg.ack();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "webhook delivery crashed", eventId: msg.body.eventId, error: String(err) }));
      msg.retry({ delaySeconds: 30 });
    }
  }
}
