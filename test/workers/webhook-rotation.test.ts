import { env } from "cloudflare:workers";
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { signatures } from "../../queues/webhook-consumer";
import { projectWebhookSecrets } from "../../worker/accounts/service";
import { getDb } from "../../worker/db/client";
import { call } from "./helpers/api";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Rotating a project's webhook signing secret: the new one is shown once, and for 24 h deliveries
 * carry signatures from both the new and the previous secret, so a receiver can roll over without
 * losing a delivery.
 */

let t: Tenant;
let project: { projectId: string; webhookSecret: string };
beforeAll(async () => {
  t = await createTenant({ withConnection: false });
  const res = await call<{ projectId: string; webhookSecret: string }>("POST", "/v1/projects", {
    key: t.workspaceKey,
    body: { name: unique("p") },
  });
  project = res.body.data;
});

const rotate = (projectId: string) =>
  call<{ webhookSecret: string; previousSecretValidUntil: string }>("POST", `/v1/projects/${projectId}/webhook-secret`, {
    key: t.workspaceKey,
  });

/** Signs one delivery as the webhook consumer would, and says which secrets verify it. */
async function verifiesWith(secrets: string[]): Promise<boolean[]> {
  const hook = await projectWebhookSecrets(getDb(env.DB), env.ENCRYPTION_KEY, project.projectId);
  const body = JSON.stringify({ event: "completed" });
  const at = new Date();
  const headers = {
    "webhook-id": "msg_test",
    "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
    "webhook-signature": signatures(hook?.secrets ?? [], "msg_test", at, body),
  };
  return secrets.map((s) => {
    try {
      new Webhook(s).verify(body, headers);
      return true;
    } catch {
      return false;
    }
  });
}

describe("POST /v1/projects/{projectId}/webhook-secret", () => {
  it("returns a new secret once, valid beside the old one for 24 hours", async () => {
    const res = await rotate(project.projectId);
    expect(res.status).toBe(201);
    expect(res.body.data.webhookSecret).toMatch(/^whsec_/);
    expect(res.body.data.webhookSecret).not.toBe(project.webhookSecret);
    const overlap = Date.parse(res.body.data.previousSecretValidUntil) - Date.now();
    expect(overlap).toBeGreaterThan(23.9 * 3600_000);
    expect(overlap).toBeLessThanOrEqual(24 * 3600_000);
    const read = await call("GET", `/v1/projects/${project.projectId}`, { key: t.workspaceKey });
    expect(read.body.data).not.toHaveProperty("webhookSecret");
    project = { ...project, webhookSecret: res.body.data.webhookSecret };
  });

  it("during the overlap a delivery verifies with either the new or the previous secret", async () => {
    const previous = project.webhookSecret;
    const res = await rotate(project.projectId);
    expect(await verifiesWith([res.body.data.webhookSecret, previous])).toEqual([true, true]);
    project = { ...project, webhookSecret: res.body.data.webhookSecret };
  });

  it("after the overlap only the new secret signs", async () => {
    const previous = project.webhookSecret;
    const res = await rotate(project.projectId);
    await env.DB.prepare("UPDATE projects SET webhook_secret_previous_until = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), project.projectId)
      .run();
    expect(await verifiesWith([res.body.data.webhookSecret, previous])).toEqual([true, false]);
  });

  it("another workspace's project is 404", async () => {
    const other = await createTenant({ withConnection: false });
    const res = await call("POST", `/v1/projects/${other.projectId}/webhook-secret`, { key: t.workspaceKey });
    expect(res.status).toBe(404);
  });
});
