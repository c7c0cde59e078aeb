import { describe, expect, it, vi } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import type { Workflow } from "../../contracts/workflows";
import type { WorkflowWebhookMessage } from "../../durable-objects/messages";
import { deliverable, deliverWebhook, retryDelaySeconds, workflowWebhookPayload, type DeliveryRecord } from "../../queues/webhook-consumer";

describe("webhook delivery policy", () => {
  it("retries with exponential backoff for more than 24 hours before giving up", () => {
    const s = DEFAULT_SETTINGS;
    let total = 0;
    for (let attempt = 1; attempt < s.webhooks.maxAttempts; attempt++) total += retryDelaySeconds(attempt, s);
    expect(retryDelaySeconds(1, s)).toBe(30);
    expect(retryDelaySeconds(2, s)).toBe(60);
    expect(total).toBeGreaterThan(24 * 3600);
  });

  it("never sends plain http outside a local stack, whatever the settings say", () => {
    const s = { ...DEFAULT_SETTINGS, webhooks: { ...DEFAULT_SETTINGS.webhooks, allowLoopbackHttp: true } };
    expect(deliverable("http://127.0.0.1:9/hook", s, "production")).not.toBeNull();
    expect(deliverable("http://127.0.0.1:9/hook", s, "local")).toBeNull();
    expect(deliverable("http://example.com/hook", s, "local")).not.toBeNull();
    expect(deliverable("https://example.com/hook", DEFAULT_SETTINGS, "production")).toBeNull();
  });
});

describe("a workflow's end event", () => {
  const workflow = {
    workflowId: "wfl_0000000000000000test",
    workspaceId: "wsp_x",
    projectId: "prj_x",
    presetId: null,
    status: "completed",
    steps: [
      {
        id: "transcribe",
        serviceType: "transcription",
        dependsOn: [],
        status: "completed",
        jobId: "job_1",
        error: null,
        createdAt: null,
        endedAt: null,
      },
    ],
    credits: {},
    trigger: null,
    variables: {},
    error: null,
    webhookUrl: "https://receiver.example/hook",
    userMetadata: { customerJobRef: "order-7" },
    createdByLabel: "ci key",
    cancelRequestedAt: null,
    createdAt: "2026-11-27T10:00:00.000Z",
    updatedAt: "2026-11-27T10:01:00.000Z",
    endedAt: "2026-11-27T10:01:00.000Z",
  } satisfies Workflow;
  const message: WorkflowWebhookMessage = {
    kind: "workflow",
    eventId: `msg_${workflow.workflowId}_end`,
    workflowId: workflow.workflowId,
    projectId: "prj_x",
    event: "completed",
    workflow,
    occurredAt: workflow.endedAt,
  };

  it("carries the workflow whole, typed workflow.<status>, with the workflow's customerJobRef", () => {
    expect(workflowWebhookPayload(message)).toEqual({
      type: "workflow.completed",
      event: "completed",
      eventId: message.eventId,
      occurredAt: workflow.endedAt,
      workflowId: workflow.workflowId,
      customerJobRef: "order-7",
      workflow,
    });
  });

  it("is posted to the workflow's own URL, signed, and recorded without reading any job", async () => {
    const sent: Request[] = [];
    const fetchSpy = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      sent.push(new Request(input, init));
      return new Response("ok");
    });
    const records: DeliveryRecord[] = [];
    try {
      const outcome = await deliverWebhook(
        {
          settings: async () => DEFAULT_SETTINGS,
          environment: "production",
          destination: async () => ({ url: "https://project.example/hook", secrets: ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"] }),
          jobInput: async () => {
            throw new Error("a workflow's event reads no job");
          },
          record: async (r) => void records.push(r),
        },
        message,
        1,
      );
      expect(outcome).toEqual({ kind: "done" });
    } finally {
      fetchSpy.mockRestore();
    }
    expect(sent.map((r) => r.url)).toEqual(["https://receiver.example/hook"]);
    expect(sent[0]?.headers.get("webhook-signature")).toMatch(/^v1,/);
    expect(records.map((r) => r.outcome)).toEqual(["delivered"]);
  });
});
