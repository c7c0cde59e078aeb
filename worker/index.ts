import { JobDurableObject } from "../durable-objects/job-do";
import type { JobHooks } from "../durable-objects/hooks";
import { handleDispatchBatch } from "../queues/dispatch-consumer";
import type { AnyWebhookMessage, DispatchMessage } from "../durable-objects/messages";
import { handleDeadLetterBatch, isDeadLetterQueue } from "../queues/dlq-consumer";
import { handleWebhookBatch } from "../queues/webhook-consumer";
import { buildApp } from "./app";
import { withCountedD1 } from "./db/query-count";
import type { Env } from "./env";
import { jobHooks } from "./jobs/job-hooks";
import { jobStub } from "./jobs/stubs";
import { runScheduledMaintenance } from "./maintenance/scheduled";
import { webhookDeps } from "./jobs/webhook-deps";
import { workerStepHandler } from "./services/index";
import { WorkflowDurableObject } from "../durable-objects/workflow-do";
import type { WorkflowHooks } from "../durable-objects/workflow-hooks";
import { workflowHooks } from "./workflows/hooks";
import { recordUndeliverable } from "./jobs/webhook-deps";
import { handleUploadEvents } from "./workflows/upload-events";

export { LaneSignal } from "../durable-objects/lane-signal";
export { CatalogDO } from "../durable-objects/catalog-do";

/** The JobDO bound in wrangler.toml: the job machinery, wired to this Worker's services. */
export class JobDO extends JobDurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withCountedD1(env));
  }

  protected override hooks(): JobHooks {
    return jobHooks(this.env);
  }
}

/** The WorkflowDO bound in wrangler.toml: a workflow's steps, making their jobs through this Worker's create. */
export class WorkflowDO extends WorkflowDurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, withCountedD1(env));
  }

  protected override hooks(): WorkflowHooks {
    return workflowHooks(this.env);
  }
}

const app = buildApp();

export default {
  fetch: app.fetch,
  async queue(batch, bindings, _ctx) {
    const env = withCountedD1(bindings);
    // Dead-letter queues first: their names begin with their source queue's name.
    if (isDeadLetterQueue(batch.queue)) {
      await handleDeadLetterBatch(batch, {
        job: (id) => jobStub(env, id),
        webhookUndeliverable: (message, reason) => recordUndeliverable(env, message, reason),
      });
    } else if (batch.queue.startsWith("media-jobs-dispatch")) {
      await handleDispatchBatch(batch as MessageBatch<DispatchMessage>, {
        job: (id) => jobStub(env, id),
        workerStep: (step) => workerStepHandler(step, env),
      });
    } else if (batch.queue.startsWith("media-jobs-webhooks"))
      await handleWebhookBatch(batch as MessageBatch<AnyWebhookMessage>, webhookDeps(env));
    else if (batch.queue.startsWith("media-jobs-uploads")) await handleUploadEvents(batch, env);
    // A queue bound by mistake: its messages are retried (then dead-lettered), never acked unread.
    else throw new Error(`no consumer for queue ${batch.queue}`);
  },
  // The Cron Trigger in wrangler.toml: one bounded run of the BLOBS orphan sweep.
  async scheduled(controller, env, _ctx) {
    await runScheduledMaintenance(env, new Date(controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, DispatchMessage | AnyWebhookMessage>;
