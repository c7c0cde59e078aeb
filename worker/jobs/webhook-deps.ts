import { eq, max } from "drizzle-orm";
import { newId } from "../../contracts/ids";
import { eventSubjectId, isWorkflowEvent, type AnyWebhookMessage } from "../../durable-objects/messages";
import type { WebhookDeps } from "../../queues/webhook-consumer";
import { projectWebhookSecrets } from "../accounts/service";
import { getDb } from "../db/client";
import { jobs, webhookDeliveries } from "../db/schema";
import type { Env } from "../env";
import { loadSettings } from "../platform/settings";
import { nowIso } from "../../contracts/clock";

/** The webhook consumer's view of the Worker (queues/webhook-consumer.ts): settings, secrets, the delivery log. */
export function webhookDeps(env: Env): WebhookDeps {
  const db = getDb(env.DB);
  return {
    settings: () => loadSettings(db),
    environment: env.ENVIRONMENT,
    destination: (projectId) => projectWebhookSecrets(db, env.ENCRYPTION_KEY, projectId),
    async jobInput(jobId) {
      const row = await db.select({ data: jobs.data }).from(jobs).where(eq(jobs.id, jobId)).get();
      const input = row?.data["input"];
      return input && typeof input === "object" ? (input as Record<string, unknown>) : null;
    },
    async record(r) {
      const m = r.message;
      await db
        .insert(webhookDeliveries)
        .values({
          id: newId("webhookDelivery"),
          // A workflow's event is listed under the workflow's id.
          jobId: eventSubjectId(m),
          projectId: m.projectId,
          eventId: m.eventId,
          event: m.event,
          url: r.url,
          attempt: r.attempt,
          outcome: r.outcome,
          responseStatus: r.responseStatus,
          errorMessage: r.errorMessage,
          durationMs: r.durationMs,
          nextRetryAt: r.nextRetryAt,
          at: nowIso(),
        })
        .onConflictDoNothing();
    },
  };
}

/**
 * An event the JobDO gave up on before it reached the queue: one `gave_up` attempt carrying the
 * reason, numbered after any earlier ones, so `GET /v1/jobs/{id}/webhook-deliveries` shows it. An
 * event with no webhook URL to go to would not have been sent: nothing is recorded.
 */
export async function recordUndeliverable(env: Env, message: AnyWebhookMessage, reason: string): Promise<void> {
  const deps = webhookDeps(env);
  const hook = await deps.destination(message.projectId);
  const url = (isWorkflowEvent(message) ? message.workflow.webhookUrl : message.job.webhookUrl) ?? hook?.url ?? null;
  if (!hook || !url) return;
  const last = await getDb(env.DB)
    .select({ attempt: max(webhookDeliveries.attempt) })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.eventId, message.eventId))
    .get();
  await deps.record({
    message,
    url,
    attempt: (last?.attempt ?? 0) + 1,
    outcome: "gave_up",
    responseStatus: null,
    errorMessage: reason,
    durationMs: 0,
    nextRetryAt: null,
  });
}
