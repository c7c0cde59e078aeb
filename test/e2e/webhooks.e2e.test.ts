import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { apiCall } from "../../scripts/lib/api-client";
import { startE2E, type E2E } from "../support/e2e-stack";
import { startWebhookReceiver } from "../support/webhook-receiver";

let e: E2E;
let secret = "";
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

beforeAll(async () => {
  e = await startE2E({
    runners: 1,
    runnerEnv: { RUNNER_ENABLE_TEST_HANDLERS: "true" },
    settings: {
      webhooks: { allowLoopbackHttp: true, retryBaseDelaySeconds: 1, retryMaxDelaySeconds: 2 },
      testPipelines: {
        transcription: [{ name: "work", executor: "runner", handler: "test.work", stages: ["download"], params: { stageMs: 10 } }],
      },
    },
  });
  // The secret is shown once; a rotation shows a fresh one (the old one also signs for 24 h).
  const rotated = await apiCall<{ webhookSecret: string }>(
    e.stack.apiBaseUrl,
    "POST",
    `/v1/projects/${e.tenant.projectId}/webhook-secret`,
    e.tenant.workspaceKey,
  );
  secret = rotated.data.webhookSecret;
  // The receiver refuses the first `completed` delivery, so the retry path runs too.
  receiver = await startWebhookReceiver(
    () => secret,
    (r, seen) => (r.body["event"] === "completed" && !seen.some((s) => s.body["event"] === "completed") ? 503 : 200),
  );
});
afterAll(async () => {
  await receiver?.close();
  await e?.close();
});

async function submitWithHook(ref: string): Promise<Job> {
  const key = `hooks/${ref}.mp4`;
  await e.s3.putObject(e.tenant.bucket, key, new TextEncoder().encode("stand-in media"), "video/mp4");
  return e.api<Job>("POST", "/v1/jobs", {
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: e.tenant.connectionId, bucket: e.tenant.bucket, sourceKey: key },
    webhookUrl: receiver.url,
    userMetadata: { customerJobRef: ref },
  });
}

async function waitForDelivered(jobId: string, event: string) {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    const hit = receiver.received.find((r) => r.body["jobId"] === jobId && r.body["event"] === event && r.answeredStatus === 200);
    if (hit) return hit;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `no ${event} delivery for ${jobId}; got ${JSON.stringify(receiver.received.map((r) => [r.body["event"], r.answeredStatus]))}`,
  );
}

describe("webhooks", () => {
  it("every status change is delivered, signed per Standard Webhooks, and a failed delivery is retried with the same webhook-id", async () => {
    const job = await submitWithHook("order-1");
    await e.waitForJob(job.jobId, ["completed"]);
    const completed = await waitForDelivered(job.jobId, "completed");
    const mine = receiver.received.filter((r) => r.body["jobId"] === job.jobId);

    expect(mine.every((r) => r.verified)).toBe(true);
    expect(new Set(mine.filter((r) => r.answeredStatus === 200).map((r) => r.body["event"]))).toEqual(
      new Set(["queued", "processing", "completed"]),
    );
    expect(completed.body["customerJobRef"]).toBe("order-1");
    expect(completed.body["resultSummary"]).toEqual((completed.body["job"] as Job).resultSummary);
    const completedAttempts = mine.filter((r) => r.body["event"] === "completed");
    expect(completedAttempts.map((r) => r.answeredStatus)).toEqual([503, 200]);
    expect(new Set(completedAttempts.map((r) => r.id)).size).toBe(1);
  });

  it("delivery attempts are listable per job", async () => {
    const job = await submitWithHook("order-2");
    await e.waitForJob(job.jobId, ["completed"]);
    await waitForDelivered(job.jobId, "completed");
    const deliveries = await e.api<Array<{ event: string; outcome: string; attempt: number; responseStatus: number }>>(
      "GET",
      `/v1/jobs/${job.jobId}/webhook-deliveries`,
    );
    const completed = deliveries.filter((d) => d.event === "completed").sort((a, b) => a.attempt - b.attempt);
    expect(completed.map((d) => d.outcome)).toEqual(["delivered"]);
    expect(deliveries.some((d) => d.event === "queued" && d.outcome === "delivered")).toBe(true);
  });

  it("a tampered signature is rejected by the receiver's verification", async () => {
    const { verifyStandardWebhook } = await import("../support/webhook-receiver");
    const ok = verifyStandardWebhook(
      secret,
      { "webhook-id": "msg_1", "webhook-timestamp": String(Math.floor(Date.now() / 1000)), "webhook-signature": "v1,AAAA" },
      "{}",
    );
    expect(ok).toBe(false);
  });
});
