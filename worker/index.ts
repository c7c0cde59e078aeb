import { buildApp } from "./app";
import type { Env } from "./env";
import { handleDispatchBatch } from "../queues/dispatch-consumer";
import { handleWebhookBatch } from "../queues/webhook-consumer";
import type { DispatchMessage, WebhookMessage } from "../queues/messages";

export { JobDO } from "../durable-objects/job-do";

const app = buildApp();

export default {
  fetch: app.fetch,
  async queue(batch, env, _ctx) {
    if (batch.queue.startsWith("media-jobs-dispatch")) await handleDispatchBatch(batch as MessageBatch<DispatchMessage>, env);
    else if (batch.queue.startsWith("media-jobs-webhooks")) await handleWebhookBatch(batch as MessageBatch<WebhookMessage>, env);
    else for (const m of batch.messages) m.ack();
  },
} satisfies ExportedHandler<Env, DispatchMessage | WebhookMessage>;
