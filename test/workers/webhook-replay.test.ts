import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError } from "./helpers/api";
import { submitTranscription, waitFor, waitForStatus } from "./helpers/jobs";
import { createTenant, projectKey, type Tenant } from "./helpers/tenant";

/**
 * Re-sending a webhook event (POST /v1/jobs/{jobId}/webhook-deliveries/{deliveryId}/replay): only a
 * finished job's final event, with the same webhook-id, its attempts numbered after the earlier ones.
 * The project's webhook URL is a public name the test environment cannot reach, so every attempt is
 * recorded as failed: what matters here is that attempts are made and numbered.
 */

interface Delivery {
  deliveryId: string;
  eventId: string;
  event: string;
  attempt: number;
}

let t: Tenant;
let other: Tenant;
let jobId: string;

const deliveries = async (tenant: Tenant, id: string) =>
  (await call<Delivery[]>("GET", `/v1/jobs/${id}/webhook-deliveries`, { key: tenant.projectKey })).body.data ?? [];
const deliveryOf = (id: string, event: string) =>
  waitFor(`a ${event} delivery of ${id}`, async () => (await deliveries(t, id)).find((d) => d.event === event));
const replay = (tenant: Tenant, id: string, deliveryId: string, key = tenant.projectKey) =>
  call<{ eventId: string; firstAttempt: number }>("POST", `/v1/jobs/${id}/webhook-deliveries/${deliveryId}/replay`, { key });

beforeAll(async () => {
  [t, other] = await Promise.all([createTenant(), createTenant()]);
  const set = await call("PATCH", `/v1/projects/${t.projectId}`, {
    key: t.workspaceKey,
    body: { webhookUrl: "https://hooks.example.com/media-jobs" },
  });
  expect(set.status).toBe(200);
  jobId = (await submitTranscription(t)).jobId;
  await call("POST", `/v1/jobs/${jobId}/cancel`, { key: t.projectKey });
  await waitForStatus(t, jobId, "cancelled");
});

describe("webhook replay", () => {
  it("re-sends a finished job's final event with the same webhook-id, numbering its attempts after the earlier ones", async () => {
    const first = await deliveryOf(jobId, "cancelled");
    const res = await replay(t, jobId, first.deliveryId);
    expect(res.status).toBe(202);
    expect(res.body.data.eventId).toBe(first.eventId);
    const before = (await deliveries(t, jobId)).filter((d) => d.eventId === first.eventId).map((d) => d.attempt);
    expect(res.body.data.firstAttempt).toBe(Math.max(...before) + 1);
    const again = await waitFor("the replayed attempt", async () =>
      (await deliveries(t, jobId)).find((d) => d.eventId === first.eventId && d.attempt === res.body.data.firstAttempt),
    );
    expect(again.event).toBe("cancelled");
  });

  it("refuses an earlier event of the job (it described a job that has moved on): 409", async () => {
    const queued = await deliveryOf(jobId, "queued");
    expectError(await replay(t, jobId, queued.deliveryId), 409, "conflict");
  });

  it("another project's delivery is 404, as if it did not exist", async () => {
    const first = await deliveryOf(jobId, "cancelled");
    expectError(await replay(other, jobId, first.deliveryId), 404, "notFound");
  });

  it("needs the webhook:replay permission", async () => {
    const first = await deliveryOf(jobId, "cancelled");
    const readOnly = await projectKey(t, ["job:read"]);
    expectError(await replay(t, jobId, first.deliveryId, readOnly.secret), 403, "forbidden");
  });
});
