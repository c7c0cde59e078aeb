import { describe, expect, it } from "vitest";
import { verifyWebhook, WebhookVerificationError } from "../../../sdk/client";

/**
 * The Worker's own signer. Imported by a computed specifier: the module runs in Node, but it also
 * declares a queue handler typed with Workers globals the Node typecheck does not load.
 */
const workerSigner: string = "../../../queues/webhook-consumer";
const { signatures } = (await import(workerSigner)) as {
  signatures: (secrets: readonly string[], eventId: string, at: Date, body: string) => string;
};

/** Signed exactly as the Worker signs deliveries (queues/webhook-consumer.ts). */
const SECRET = "whsec_" + Buffer.from("a-32-byte-secret-for-the-tests!!").toString("base64");
const OLD_SECRET = "whsec_" + Buffer.from("the-previous-secret-of-32-bytes!").toString("base64");
const body = JSON.stringify({
  type: "job.completed",
  event: "completed",
  eventId: "msg_job_1_4",
  jobId: "job_1",
  customerJobRef: null,
  job: {},
});

function delivery(at: Date, secrets: string[] = [SECRET], payload = body) {
  return {
    "webhook-id": "msg_job_1_4",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures(secrets, "msg_job_1_4", at, payload),
  };
}

const reason = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => (e instanceof WebhookVerificationError ? e.reason : e),
  );

describe("webhooks.verify", () => {
  it("accepts a delivery signed the way the Worker signs it and returns the parsed event", async () => {
    const event = await verifyWebhook(body, delivery(new Date()), SECRET);
    expect(event).toMatchObject({ event: "completed", jobId: "job_1" });
  });

  it("accepts the body as bytes and headers as a Headers object", async () => {
    await expect(verifyWebhook(new TextEncoder().encode(body), new Headers(delivery(new Date())), SECRET)).resolves.toMatchObject({
      jobId: "job_1",
    });
  });

  it("during a secret rotation, a receiver holding only the previous secret still verifies", async () => {
    await expect(verifyWebhook(body, delivery(new Date(), [SECRET, OLD_SECRET]), OLD_SECRET)).resolves.toMatchObject({ jobId: "job_1" });
  });

  it("rejects a tampered body", async () => {
    expect(await reason(verifyWebhook(body.replace("job_1", "job_2"), delivery(new Date()), SECRET))).toBe("badSignature");
  });

  it("rejects the wrong secret", async () => {
    expect(await reason(verifyWebhook(body, delivery(new Date()), OLD_SECRET))).toBe("badSignature");
  });

  it("rejects a timestamp older than the tolerance (a replay), even with a valid signature", async () => {
    const old = new Date(Date.now() - 301_000);
    expect(await reason(verifyWebhook(body, delivery(old), SECRET))).toBe("timestampOutOfTolerance");
  });

  it("the tolerance window is configurable", async () => {
    const old = new Date(Date.now() - 301_000);
    await expect(verifyWebhook(body, delivery(old), SECRET, { toleranceSec: 600 })).resolves.toMatchObject({ jobId: "job_1" });
  });

  it("rejects a delivery without the Standard Webhooks headers", async () => {
    expect(await reason(verifyWebhook(body, { "webhook-id": "msg_1" }, SECRET))).toBe("missingHeaders");
  });
});
