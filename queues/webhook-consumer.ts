import { Webhook } from "standardwebhooks";
import { JobSchema, type Job } from "../contracts/job";
import { webhookUrlRefusal } from "../contracts/outbound-address";
import type { Settings } from "../contracts/settings";
import { isWorkflowEvent, type AnyWebhookMessage, type WebhookMessage, type WorkflowWebhookMessage } from "../durable-objects/messages";
import { exponentialStep } from "../contracts/retry";

/** One delivery attempt as recorded (listable per job). */
export interface DeliveryRecord {
  message: AnyWebhookMessage;
  url: string;
  attempt: number;
  outcome: "delivered" | "failed" | "gave_up";
  responseStatus: number | null;
  errorMessage: string | null;
  durationMs: number;
  nextRetryAt: string | null;
}

/** What delivery needs from the Worker: settings, where and with which secrets, and a place to record attempts. */
export interface WebhookDeps {
  settings(): Promise<Settings>;
  environment: string;
  /** The project's URL and signing secrets (current first; the previous one during a rotation's overlap). */
  destination(projectId: string): Promise<{ url: string | null; secrets: string[] } | null>;
  /** The job's input as stored at create (it never changes); null when the job's record is gone. */
  jobInput(jobId: string): Promise<Record<string, unknown> | null>;
  record(r: DeliveryRecord): Promise<void>;
}

/**
 * Webhook delivery: one POST per status change, signed per Standard Webhooks (webhook-id,
 * webhook-timestamp, webhook-signature = v1,HMAC-SHA256 with the project's whsec_ secret).
 * The `webhook-id` is the same on every retry so receivers can deduplicate. Failures retry
 * through the queue with exponential backoff; every attempt is recorded and listable per job.
 */

/** The Job object as the API shows it: the event's snapshot with the stored input, fields in the Job's own order. */
export function eventJob(m: WebhookMessage, input: Record<string, unknown>): Job {
  const whole: Record<string, unknown> = { ...m.job, input };
  const order = [...Object.keys(JobSchema.shape), ...Object.keys(whole)];
  return Object.fromEntries([...new Set(order)].filter((k) => Object.hasOwn(whole, k)).map((k) => [k, whole[k]])) as Job;
}

export function webhookPayload(m: WebhookMessage, input: Record<string, unknown>) {
  const ref = m.job.userMetadata?.["customerJobRef"];
  return {
    type: `job.${m.event}`,
    event: m.event,
    eventId: m.eventId,
    occurredAt: m.occurredAt,
    jobId: m.jobId,
    customerJobRef: typeof ref === "string" ? ref : null,
    ...(m.event === "completed" ? { resultSummary: m.job.resultSummary } : {}),
    job: eventJob(m, input),
  };
}

/** A workflow's end (issue 26): one event, with every step's job id and state. */
export function workflowWebhookPayload(m: WorkflowWebhookMessage) {
  const ref = m.workflow.userMetadata?.["customerJobRef"];
  return {
    type: `workflow.${m.event}`,
    event: m.event,
    eventId: m.eventId,
    occurredAt: m.occurredAt,
    workflowId: m.workflowId,
    customerJobRef: typeof ref === "string" ? ref : null,
    workflow: m.workflow,
  };
}

/** Kept as a named export for tests: the same rule the API applies at create. */
export const deliverable = webhookUrlRefusal;

/**
 * The `webhook-signature` header: one `v1,<base64>` entry per secret, space-separated, as Standard
 * Webhooks allows, so a receiver holding either the new or the previous secret verifies it.
 */
export function signatures(secrets: readonly string[], eventId: string, at: Date, body: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(eventId, at, body)).join(" ");
}

export function retryDelaySeconds(attempt: number, settings: Settings): number {
  return exponentialStep(attempt, settings.webhooks.retryBaseDelaySeconds, settings.webhooks.retryMaxDelaySeconds);
}

type Outcome = { kind: "done" } | { kind: "retry"; delaySeconds: number };

/** `queueAttempt` is the queue's count for this message (1 first); a replay's attempts are numbered after the event's earlier ones. */
export async function deliverWebhook(deps: WebhookDeps, m: AnyWebhookMessage, queueAttempt: number): Promise<Outcome> {
  const attempt = (m.attemptOffset ?? 0) + queueAttempt;
  const settings = await deps.settings();
  const hook = await deps.destination(m.projectId);
  const url = (isWorkflowEvent(m) ? m.workflow.webhookUrl : m.job.webhookUrl) ?? hook?.url ?? null;
  if (!hook || !url) return { kind: "done" };
  const record = (
    outcome: DeliveryRecord["outcome"],
    responseStatus: number | null,
    errorMessage: string | null,
    durationMs: number,
    nextRetryAt: string | null,
  ) => deps.record({ message: m, url, attempt, outcome, responseStatus, errorMessage, durationMs, nextRetryAt });
  const refusal = deliverable(url, settings, deps.environment);
  if (refusal) {
    await record("gave_up", null, refusal.message, 0, null);
    return { kind: "done" };
  }
  const body = await eventBody(deps, m);
  // The job was deleted (worker/deletion/): its event is dropped, and no delivery row brings its id back.
  if (body === null) return { kind: "done" };
  const sentAt = new Date();
  const signature = signatures(hook.secrets, m.eventId, sentAt, body);
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
  if (queueAttempt >= (m.maxAttempts ?? settings.webhooks.maxAttempts)) {
    await record("gave_up", status, error, duration, null);
    return { kind: "done" };
  }
  const delaySeconds = retryDelaySeconds(queueAttempt, settings);
  await record("failed", status, error, duration, new Date(Date.now() + delaySeconds * 1000).toISOString());
  return { kind: "retry", delaySeconds };
}

async function eventBody(deps: WebhookDeps, m: AnyWebhookMessage): Promise<string | null> {
  if (isWorkflowEvent(m)) return JSON.stringify(workflowWebhookPayload(m));
  const input = await deps.jobInput(m.jobId);
  return input ? JSON.stringify(webhookPayload(m, input)) : null;
}

export async function handleWebhookBatch(batch: MessageBatch<AnyWebhookMessage>, deps: WebhookDeps): Promise<void> {
  for (const msg of batch.messages) {
    try {
      const outcome = await deliverWebhook(deps, msg.body, msg.attempts);
      if (outcome.kind === "retry") msg.retry({ delaySeconds: Math.ceil(outcome.delaySeconds) });
      else msg.ack();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "webhook delivery crashed", eventId: msg.body.eventId, error: String(err) }));
      msg.retry({ delaySeconds: 30 });
    }
  }
}
