import { JobDurableObject } from "../durable-objects/job-do";
import type { JobHooks } from "../durable-objects/hooks";
import { handleDispatchBatch } from "../queues/dispatch-consumer";
import type { DispatchMessage, WebhookMessage } from "../durable-objects/messages";
import { handleWebhookBatch } from "../queues/webhook-consumer";
import { buildApp } from "./app";
import type { Env } from "./env";
import { jobHooks } from "./jobs/job-hooks";
import { jobStub } from "./jobs/stubs";
import { webhookDeps } from "./jobs/webhook-deps";
import { workerStepHandler } from "./services/index";

export { LaneSignal } from "../durable-objects/lane-signal";

/** The JobDO bound in wrangler.toml: the job machinery, wired to this Worker's services. */
export class JobDO extends JobDurableObject<Env> {
  protected override hooks(): JobHooks {
    return jobHooks(this.env);
  }
}

const app = buildApp();

export default {
  fetch: app.fetch,
  async queue(batch, env, _ctx) {
    if (batch.queue.startsWith("media-jobs-dispatch")) {
      await handleDispatchBatch(batch as MessageBatch<DispatchMessage>, {
        job: (id) => jobStub(env, id),
        workerStep: (step) => workerStepHandler(step, env),
      });
    } else if (batch.queue.startsWith("media-jobs-webhooks"))
      await handleWebhookBatch(batch as MessageBatch<WebhookMessage>, webhookDeps(env));
    else for (const m of batch.messages) m.ack();
  },
} satisfies ExportedHandler<Env, DispatchMessage | WebhookMessage>;
