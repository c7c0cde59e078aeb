import { newId } from "../../contracts/ids";
import type { WebhookDeps } from "../../queues/webhook-consumer";
import { projectWebhookSecrets } from "../accounts/service";
import { getDb } from "../db/client";
import { webhookDeliveries } from "../db/schema";
import type { Env } from "../env";
import { loadSettings } from "../platform/settings";

/** The webhook consumer's view of the Worker (queues/webhook-consumer.ts): settings, secrets, the delivery log. */
export function webhookDeps(env: Env): WebhookDeps {
  const db = getDb(env.DB);
  return {
    settings: () => loadSettings(db),
    environment: env.ENVIRONMENT,
    destination: (projectId) => projectWebhookSecrets(db, env.ENCRYPTION_KEY, projectId),
    async record(r) {
      const m = r.message;
      await db
        .insert(webhookDeliveries)
        .values({
          id: newId("webhookDelivery"),
          jobId: m.jobId,
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
          at: new Date().toISOString(),
        })
        .onConflictDoNothing();
    },
  };
}
