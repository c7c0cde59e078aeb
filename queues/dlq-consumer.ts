import { eventSubjectId, type AnyWebhookMessage, type DispatchMessage } from "../durable-objects/messages";
import type { JobRpc } from "../durable-objects/job-do";

/**
 * The dead-letter queues' consumer: what a queue gave up on is recorded, never dropped silently.
 * - A dispatch message ("start this step") its consumer failed on every try: if the job still waits
 *   on that message, a runner step is put in its lane directly and an in-Worker step's job fails
 *   `processing_failed` (JobDO.dispatchDeadLettered); otherwise nothing would ever start the step.
 * - A webhook event its consumer failed on every try (not a refused delivery: those are recorded by
 *   the consumer itself): recorded as a failed delivery with the reason, listable per job.
 * Each message is logged with what was done about it. Handling is idempotent: a message delivered
 * twice fails nothing twice and records the same delivery once more at most.
 */
export interface DeadLetterDeps {
  job(jobId: string): Pick<JobRpc, "dispatchDeadLettered">;
  webhookUndeliverable(message: AnyWebhookMessage, reason: string): Promise<void>;
}

export const DISPATCH_DLQ_PREFIX = "media-jobs-dispatch-dlq";
export const WEBHOOK_DLQ_PREFIX = "media-jobs-webhooks-dlq";

export function isDeadLetterQueue(queue: string): boolean {
  return queue.startsWith(DISPATCH_DLQ_PREFIX) || queue.startsWith(WEBHOOK_DLQ_PREFIX);
}

function log(level: "warn" | "error", msg: string, fields: Record<string, unknown>): void {
  console.log(JSON.stringify({ level, msg, ...fields }));
}

export async function handleDeadLetterBatch(batch: MessageBatch<DispatchMessage | AnyWebhookMessage>, deps: DeadLetterDeps): Promise<void> {
  const dispatch = batch.queue.startsWith(DISPATCH_DLQ_PREFIX);
  for (const msg of batch.messages) {
    try {
      if (dispatch) {
        const m = msg.body as DispatchMessage;
        const { outcome } = await deps.job(m.jobId).dispatchDeadLettered(m.attempt, m.stepIndex, msg.attempts);
        log("error", "dispatch message dead-lettered", { queue: batch.queue, ...m, outcome });
      } else {
        const m = msg.body as AnyWebhookMessage;
        await deps.webhookUndeliverable(m, "dead-lettered: the webhook consumer failed on every delivery of this event");
        log("error", "webhook event dead-lettered", { queue: batch.queue, jobId: eventSubjectId(m), eventId: m.eventId, event: m.event });
      }
      msg.ack();
    } catch (err) {
      // Recording failed (D1 or the DO unavailable): the dead-letter queue tries again.
      log("warn", "dead letter not recorded yet; will retry", { queue: batch.queue, error: String(err) });
      msg.retry({ delaySeconds: 30 });
    }
  }
}
