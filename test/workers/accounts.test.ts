import { describe, expect, it } from "vitest";
import { admin, call } from "./helpers/api";
import { consoleSession, createTenant, unique } from "./helpers/tenant";

describe("projects", () => {
  it("a project default webhookUrl must be https", async () => {
    const t = await createTenant({ withConnection: false });
    const res = await call("POST", "/v1/projects", {
      key: t.workspaceKey,
      body: { name: unique("p"), webhookUrl: "http://example.com/hook" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: "webhookUrl", issue: "httpsRequired" }]);
  });

  it("a project is created with a Standard Webhooks secret, shown once: a read never shows it", async () => {
    const t = await createTenant({ withConnection: false });
    const res = await call<{ projectId: string; webhookSecret: string }>("POST", "/v1/projects", {
      key: t.workspaceKey,
      body: { name: unique("p"), webhookUrl: "https://hooks.example.com/media" },
    });
    expect(res.status).toBe(201);
    expect(res.body.data.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const got = await call<{ webhookSecret?: string; webhookUrl: string }>("GET", `/v1/projects/${res.body.data.projectId}`, {
      key: t.workspaceKey,
    });
    expect(got.body.data).not.toHaveProperty("webhookSecret");
    expect(got.body.data.webhookUrl).toBe("https://hooks.example.com/media");
    const list = await call<Array<Record<string, unknown>>>("GET", "/v1/projects", { key: t.workspaceKey });
    expect(list.body.data.every((p) => !("webhookSecret" in p))).toBe(true);
  });

  it("a duplicate project name in the workspace is 409 conflict", async () => {
    const t = await createTenant({ withConnection: false });
    const name = unique("p");
    await call("POST", "/v1/projects", { key: t.workspaceKey, body: { name } });
    const dup = await call("POST", "/v1/projects", { key: t.workspaceKey, body: { name } });
    expect(dup.status).toBe(409);
  });
});

describe("API keys", () => {
  it("a minted key's secret is shown once: listings carry only its prefix", async () => {
    const t = await createTenant({ withConnection: false });
    const list = await call<Array<Record<string, unknown>>>("GET", `/v1/projects/${t.projectId}/api-keys`, { key: t.workspaceKey });
    expect(list.status).toBe(200);
    expect(list.body.data.length).toBeGreaterThan(0);
    for (const k of list.body.data) {
      expect(k).not.toHaveProperty("secret");
      expect(k).not.toHaveProperty("secretHash");
      expect(String(k["prefix"])).toBe(t.projectKey.slice(0, 11));
    }
  });

  it("a revoked key fails at once with 401", async () => {
    const t = await createTenant({ withConnection: false });
    const before = await call("GET", "/v1/jobs", { key: t.projectKey });
    expect(before.status).toBe(200);
    await call("POST", `/v1/projects/${t.projectId}/api-keys/${t.projectKeyId}/revoke`, { key: t.workspaceKey });
    const after = await call("GET", "/v1/jobs", { key: t.projectKey });
    expect(after.status).toBe(401);
    expect(after.body.error?.message).toMatch(/revoked/);
  });

  it("revoking a console session by its sessionId (cse_) ends it: its key is refused at once", async () => {
    const t = await createTenant({ withConnection: false });
    const session = await consoleSession(t);
    expect(session.sessionId).toMatch(/^cse_/);
    expect((await call("GET", "/v1/jobs", { key: session.secret })).status).toBe(200);
    const res = await call<{ apiKeyId: string; kind: string; revokedAt: string | null }>(
      "POST",
      `/v1/projects/${t.projectId}/api-keys/${session.sessionId}/revoke`,
      { key: t.workspaceKey },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ apiKeyId: session.sessionId, kind: "console", revokedAt: expect.any(String) });
    expect((await call("GET", "/v1/jobs", { key: session.secret })).status).toBe(401);
  });

  it("another project's console session is not found", async () => {
    const [t, other] = [await createTenant({ withConnection: false }), await createTenant({ withConnection: false })];
    const session = await consoleSession(other);
    const res = await call("POST", `/v1/projects/${t.projectId}/api-keys/${session.sessionId}/revoke`, { key: t.workspaceKey });
    expect(res.status).toBe(404);
    expect((await call("GET", "/v1/jobs", { key: session.secret })).status).toBe(200);
  });

  it("only the stored hash of a secret is kept", async () => {
    const t = await createTenant({ withConnection: false });
    const { env } = await import("cloudflare:workers");
    const rows = await env.DB.prepare("SELECT secret_hash FROM api_keys WHERE project_id = ?")
      .bind(t.projectId)
      .all<{ secret_hash: string }>();
    for (const r of rows.results) {
      expect(r.secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(r.secret_hash).not.toContain(t.projectKey);
    }
  });
});

describe("workspaces (operator)", () => {
  it("creating a workspace with an existing name reuses it", async () => {
    const name = unique("ws");
    const a = await admin<{ workspaceId: string }>("POST", "/workspaces", { name, plan: "pro" });
    const b = await admin<{ workspaceId: string }>("POST", "/workspaces", { name, plan: "pro" });
    expect(a.status).toBe(201);
    expect(b.status).toBe(200);
    expect(b.body.data.workspaceId).toBe(a.body.data.workspaceId);
  });

  it("workspace details show usage per meter with limits and when they reset", async () => {
    const t = await createTenant({ plan: "free", withConnection: false });
    const res = await call<{
      plan: string;
      usage: { resetsAt: string; meters: Array<{ meter: string; limit: number | null; used: number; remaining: number | null }> };
    }>("GET", "/v1/workspace", { key: t.workspaceKey });
    expect(res.status).toBe(200);
    expect(res.body.data.plan).toBe("free");
    const tx = res.body.data.usage.meters.find((m) => m.meter === "transcription_jobs");
    expect(tx).toEqual({ meter: "transcription_jobs", used: 0, limit: 10, remaining: 10 });
    expect(res.body.data.usage.meters.find((m) => m.meter === "clip_credits")?.limit).toBe(1000);
    expect(res.body.data.usage.meters.find((m) => m.meter === "thumbnail_credits")?.limit).toBe(100);
    expect(Date.parse(res.body.data.usage.resetsAt)).toBeGreaterThan(Date.now());
  });
});

describe("storage connections", () => {
  it("the secret is never returned and is encrypted at rest", async () => {
    const t = await createTenant();
    const res = await call<Record<string, unknown>>("GET", `/v1/storage-connections/${t.connectionId}`, { key: t.projectKey });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain("secretAccessKey");
    const { env } = await import("cloudflare:workers");
    const row = await env.DB.prepare("SELECT secret_access_key_enc FROM storage_connections WHERE id = ?")
      .bind(t.connectionId)
      .first<{ secret_access_key_enc: string }>();
    expect(row?.secret_access_key_enc).not.toContain("S3RVER");
  });

  it("wrong credentials are refused at creation with 422", async () => {
    const t = await createTenant();
    const { inject } = await import("vitest");
    const s3 = inject("s3");
    const res = await call("POST", "/v1/storage-connections", {
      key: t.projectKey,
      body: { name: "bad", endpoint: s3.endpoint, buckets: ["media-test"], accessKeyId: s3.accessKeyId, secretAccessKey: "wrong-secret" },
    });
    expect(res.status).toBe(422);
    expect(res.body.error?.details).toEqual([{ path: "buckets.0", issue: "credentialsRejected" }]);
  });

  it("a deactivated connection cannot be used for new jobs", async () => {
    const t = await createTenant();
    const res = await call<{ status: string }>("POST", `/v1/storage-connections/${t.connectionId}/deactivate`, { key: t.projectKey });
    expect(res.body.data.status).toBe("inactive");
  });
});
