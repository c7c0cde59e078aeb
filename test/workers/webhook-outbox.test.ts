import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, inject, it, vi } from "vitest";
import type { Job } from "../../contracts/job";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { MAX_OUTBOX_EVENTS, MAX_OUTBOX_SENDS } from "../../durable-objects/job-do";
import type { WebhookMessage } from "../../durable-objects/messages";
import { presign } from "../support/presign";
import { call } from "./helpers/api";
import {
  cancelUnfinished,
  fakeRunnerWith,
  patchSettings,
  submitTranscription,
  useTestPipeline,
  waitFor,
  waitForStatus,
} from "./helpers/jobs";
import { jobDO } from "./helpers/machinery";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript } from "./helpers/transcripts";
import { runnerToken } from "./helpers/api";

/**
 * Webhook events on their way to the queue: a message carries the job's status snapshot without its
 * input (the consumer reads the input from D1), so a job with a large input still gets its
 * webhooks; the JobDO's outbox is bounded, and a send the queue keeps refusing is retried a bounded
 * number of times, then recorded as a failed delivery, and the alarm stops.
 */

const HOOK = "https://hooks.example.com/media-jobs";
let t: Tenant;
let txt: string;

interface Delivery {
  eventId: string;
  event: string;
  attempt: number;
  outcome: string;
  error: string | null;
}
const deliveries = async (jobId: string) =>
  (await call<Delivery[]>("GET", `/v1/jobs/${jobId}/webhook-deliveries`, { key: t.projectKey })).body.data ?? [];
const deliveryOf = (jobId: string, event: string, outcome?: string) =>
  waitFor(`a ${event} delivery of ${jobId}`, async () =>
    (await deliveries(jobId)).find((d) => d.event === event && (!outcome || d.outcome === outcome)),
  );

beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  // Completed through the real transcription pipeline, before the test pipeline replaces it.
  txt = (await completedTranscript(t, 3)).textSourceId;
  await useTestPipeline("transcription", [{ stages: ["work"] }]);
  const set = await call("PATCH", `/v1/projects/${t.projectId}`, { key: t.workspaceKey, body: { webhookUrl: HOOK } });
  expect(set.status).toBe(200);
});
afterEach(async () => {
  vi.restoreAllMocks();
  await cancelUnfinished(t);
});

/** From now on, this job's Durable Object finds a webhook queue that refuses every send. */
async function refuseWebhookSends(jobId: string): Promise<void> {
  await runInDurableObject(jobDO(jobId), (instance) => {
    // The DO keeps its bindings on `env`; only the webhook queue is swapped.
    const env = (instance as unknown as { env: Record<string, unknown> }).env;
    Object.defineProperty(instance, "env", {
      value: { ...env, WEBHOOK_QUEUE: { send: () => Promise.reject(new Error("Queue send failed: the queue is unavailable")) } },
    });
  });
}

/** A presigned clip job whose lists hold `n` URLs each, every one naming a key of about 1,000 characters. */
async function clipJobWithLongUrls(n: number): Promise<Job> {
  const s3 = inject("s3");
  const folder = Array.from({ length: 5 }, (_, i) => `${i}${"x".repeat(190)}`).join("/");
  const urls = (kind: string) =>
    Promise.all(Array.from({ length: n }, (_, i) => presign(s3, "PUT", "media-test", `${unique("long")}/${folder}/${kind}-${i}.bin`)));
  const input = {
    sourceType: "s3_presigned",
    textSourceId: txt,
    sourceUrl: await presign(s3, "GET", "media-test", await putSource(`${unique("presigned")}/talk.mp4`)),
    outputUrls: { video: await urls("clip"), poster: await urls("poster") },
    options: { maxClips: n },
  };
  const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: { serviceType: "clip_generation", input } });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(201);
  return res.body.data;
}

describe("webhook events of a job with a large input", () => {
  it("a presigned clip job with 64 long URLs per list (an input over 128 KB) gets its webhooks, the payload carrying the whole input", async () => {
    // A list holds no more URLs than the job can write: an operator who allows 64 clips a job allows such inputs.
    const plans = DEFAULT_SETTINGS.policy.clip_generation;
    await patchSettings({ policy: { clip_generation: { ...plans, enterprise: { ...plans.enterprise, maxClipsCap: 64 } } } });
    const sent = vi.spyOn(globalThis, "fetch");
    const job = await clipJobWithLongUrls(64);
    expect(JSON.stringify(job.input).length).toBeGreaterThan(128_000);
    const queued = await deliveryOf(job.jobId, "queued");
    expect(queued.attempt).toBe(1);
    const post = sent.mock.calls.find(
      ([url, init]) => String(url) === HOOK && init?.method === "POST" && String(init.body).includes(job.jobId),
    );
    const payload = JSON.parse(String(post?.[1]?.body)) as { type: string; jobId: string; job: Job };
    expect(payload).toMatchObject({ type: "job.queued", jobId: job.jobId, job: { jobId: job.jobId, status: "queued" } });
    expect(payload.job.input).toEqual(job.input);
  });

  it("a webhook queue message carries the job without its input", async () => {
    const job = await submitTranscription(t);
    // The create leaves its `queued` event to the object's alarm: it is handed over before the queue turns refusing.
    await deliveryOf(job.jobId, "queued");
    await refuseWebhookSends(job.jobId);
    await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    const waiting = await runInDurableObject(jobDO(job.jobId), (instance) => {
      const state = (instance as unknown as { state: { outbox: Array<{ message: WebhookMessage }> } }).state;
      return state.outbox.map((e) => e.message);
    });
    expect(waiting.map((m) => m.event)).toEqual(["cancelled"]);
    expect(waiting[0]?.job).not.toHaveProperty("input");
  });
});

describe("a webhook queue that refuses sends", () => {
  it(`a refused event is tried ${MAX_OUTBOX_SENDS} times, then recorded as a failed delivery with the reason, and the alarm stops`, async () => {
    const job = await submitTranscription(t);
    await deliveryOf(job.jobId, "queued");
    await refuseWebhookSends(job.jobId);
    await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    await waitForStatus(t, job.jobId, "cancelled");
    // The cancel's own send was the first try; each alarm is one more.
    for (let tries = 2; tries <= MAX_OUTBOX_SENDS; tries++) expect(await runDurableObjectAlarm(jobDO(job.jobId))).toBe(true);
    const failed = await deliveryOf(job.jobId, "cancelled");
    expect(failed).toMatchObject({ outcome: "gave_up", attempt: 1 });
    expect(failed.error).toContain(`the webhook queue refused the event ${MAX_OUTBOX_SENDS} times`);
    expect(failed.error).toContain("the queue is unavailable");
    expect(await runDurableObjectAlarm(jobDO(job.jobId))).toBe(false);
  });

  it("tries back off: the alarm for the next send is due later each time", async () => {
    const job = await submitTranscription(t);
    await refuseWebhookSends(job.jobId);
    await call("POST", `/v1/jobs/${job.jobId}/cancel`, { key: t.projectKey });
    const gaps: number[] = [];
    for (let i = 0; i < 3; i++) {
      const dueIn = await runInDurableObject(
        jobDO(job.jobId),
        async (_instance, state) => ((await state.storage.getAlarm()) ?? 0) - Date.now(),
      );
      gaps.push(dueIn);
      await runDurableObjectAlarm(jobDO(job.jobId));
    }
    expect(gaps[0]).toBeGreaterThan(3_000);
    expect(gaps[1]).toBeGreaterThan(gaps[0]! * 1.5);
    expect(gaps[2]).toBeGreaterThan(gaps[1]! * 1.5);
  });

  it(`the outbox holds at most ${MAX_OUTBOX_EVENTS} events: the oldest is recorded as dropped to make room`, async () => {
    const job = await submitTranscription(t);
    await deliveryOf(job.jobId, "queued");
    await refuseWebhookSends(job.jobId);
    const runner = fakeRunnerWith(await runnerToken());
    // Each lease and release is two events (processing, queued) the queue refuses.
    for (let i = 0; i < MAX_OUTBOX_EVENTS / 2 + 1; i++) await runner.release(await runner.leaseWhenReady(job.jobId));
    const outbox = await runInDurableObject(jobDO(job.jobId), (instance) => {
      return (instance as unknown as { state: { outbox: unknown[] } }).state.outbox.length;
    });
    expect(outbox).toBe(MAX_OUTBOX_EVENTS);
    const dropped = (await deliveries(job.jobId)).filter((d) => d.outcome === "gave_up");
    expect(dropped.length).toBeGreaterThanOrEqual(1);
    expect(dropped[0]?.error).toContain("dropped unsent");
  });
});

describe("an event too large for any queue message", () => {
  it("is recorded as a failed delivery at once, with its size, and not retried", async () => {
    const job = await submitTranscription(t);
    await deliveryOf(job.jobId, "queued");
    const runner = fakeRunnerWith(await runnerToken());
    const task = await runner.leaseWhenReady(job.jobId);
    await runner.fail(task, "unsupported_media", false, "x".repeat(200_000));
    await waitForStatus(t, job.jobId, "failed");
    const failed = await deliveryOf(job.jobId, "failed");
    expect(failed.outcome).toBe("gave_up");
    expect(failed.error).toMatch(/the event is \d+ bytes; a webhook queue message holds at most 128 KB/);
    expect(await runDurableObjectAlarm(jobDO(job.jobId))).toBe(false);
  });
});
