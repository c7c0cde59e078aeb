import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { DispatchMessage, WebhookMessage } from "../../durable-objects/messages";
import { jobSnapshot } from "../../durable-objects/messages";
import worker from "../../worker/index";
import { call } from "./helpers/api";
import {
  cancelUnfinished,
  fakeRunner,
  getJob,
  patchSettings,
  submitTranscription,
  useTestPipeline,
  waitFor,
  waitForStatus,
} from "./helpers/jobs";
import { createTenant, type Tenant } from "./helpers/tenant";

/**
 * The dead-letter queues' consumer (queues/dlq-consumer.ts): what a queue gave up on is recorded,
 * never dropped. A job still waiting on a dead-lettered dispatch message is not left waiting for
 * ever; a dead-lettered webhook event is listed as a failed delivery.
 */

let t: Tenant;
const STAGES = ["work"];

beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
  // A failed first attempt waits an hour for its retry's dispatch message: the job waits on exactly that message.
  await patchSettings({ retry: { maxAttempts: 3, baseDelaySeconds: 3600 } });
});
afterEach(() => cancelUnfinished(t));

async function deliver<T>(queue: string, bodies: T[], attempts = 10) {
  const batch = createMessageBatch<T>(
    queue,
    bodies.map((body, i) => ({ id: `m${i}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<DispatchMessage | WebhookMessage>, env, ctx);
  return getQueueResult(batch, ctx);
}

/** A job whose first attempt failed (retryable): it now waits on the dispatch message of attempt 1, due in an hour. */
async function jobWaitingOnRetry(executor: "runner" | "worker"): Promise<Job> {
  await useTestPipeline("transcription", [{ executor, stages: STAGES, params: { failAttempts: 1 } }]);
  const job = await submitTranscription(t);
  if (executor === "runner") await fakeRunner.fail(await fakeRunner.leaseWhenReady(job.jobId));
  return waitFor("the failed first attempt", async () => {
    const j = await getJob(t, job.jobId);
    return j.status === "queued" && j.attemptCount === 1 ? j : null;
  });
}

describe("the dispatch dead-letter queue", () => {
  it("a job whose in-Worker step waits on a dead-lettered message fails processing_failed, naming the step", async () => {
    const job = await jobWaitingOnRetry("worker");
    const result = await deliver<DispatchMessage>("media-jobs-dispatch-dlq", [{ jobId: job.jobId, attempt: 1, stepIndex: 0 }]);
    expect(result.explicitAcks).toEqual(["m0"]);
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error).toEqual({
      code: "processing_failed",
      message: "step 1 could not be started: its dispatch message was given up after 10 deliveries",
    });
  });

  it("a job whose runner step waits on a dead-lettered message is put in its lane instead, and a runner takes it", async () => {
    const job = await jobWaitingOnRetry("runner");
    await deliver<DispatchMessage>("media-jobs-dispatch-dlq", [{ jobId: job.jobId, attempt: 1, stepIndex: 0 }]);
    const task = await fakeRunner.leaseWhenReady(job.jobId);
    expect(task.attempt).toBe(1);
  });

  it("a stale dead letter (an attempt the job has left behind) changes nothing", async () => {
    const job = await jobWaitingOnRetry("worker");
    const before = await getJob(t, job.jobId);
    const result = await deliver<DispatchMessage>("media-jobs-dispatch-dlq", [{ jobId: job.jobId, attempt: 0, stepIndex: 0 }]);
    expect(result.explicitAcks).toEqual(["m0"]);
    const after = await getJob(t, job.jobId);
    expect({ status: after.status, error: after.error, updatedAt: after.updatedAt }).toEqual({
      status: before.status,
      error: null,
      updatedAt: before.updatedAt,
    });
  });
});

describe("the webhook dead-letter queue", () => {
  it("a dead-lettered event is listed as a failed delivery with the reason", async () => {
    await useTestPipeline("transcription", [{ stages: STAGES }]);
    const job = await submitTranscription(t);
    const message: WebhookMessage = {
      eventId: `evt_dlq_${job.jobId}`,
      jobId: job.jobId,
      projectId: t.projectId,
      event: "queued",
      // Where the event was going (a job's own webhookUrl); the consumer never sent it, so nothing is sent now.
      job: { ...jobSnapshot(job), webhookUrl: "https://hooks.example.com/media-jobs" },
      occurredAt: new Date().toISOString(),
    };
    await deliver<WebhookMessage>("media-jobs-webhooks-dlq", [message]);
    const listed = await waitFor("the recorded dead letter", async () => {
      const res = await call<Array<{ eventId: string; error: string | null }>>("GET", `/v1/jobs/${job.jobId}/webhook-deliveries`, {
        key: t.projectKey,
      });
      return res.body.data?.find((d) => d.eventId === message.eventId);
    });
    expect(listed.error).toContain("dead-lettered");
  });
});

describe("a queue with no consumer", () => {
  it("its batch is refused (retried, then dead-lettered), not acknowledged unread", async () => {
    const batch = createMessageBatch<DispatchMessage>("media-jobs-unknown", [
      { id: "m0", timestamp: new Date(), attempts: 1, body: { jobId: "job_x", attempt: 0, stepIndex: 0 } },
    ]);
    await expect(worker.queue(batch as MessageBatch<DispatchMessage | WebhookMessage>, env, createExecutionContext())).rejects.toThrow(
      "no consumer for queue media-jobs-unknown",
    );
  });
});
