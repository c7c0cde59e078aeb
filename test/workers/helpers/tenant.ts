import { inject } from "vitest";
import { admin, call } from "./api";

export interface Tenant {
  workspaceId: string;
  workspaceKey: string;
  projectId: string;
  projectKey: string;
  projectKeyId: string;
  connectionId: string;
  bucket: string;
}

let counter = 0;
/** Unique names per call: storage is shared by all tests of a file. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

/** A workspace with a workspace key, a project, a full-permission project key and a connection to the test bucket. */
export async function createTenant(opts: { plan?: "free" | "pro" | "enterprise"; withConnection?: boolean } = {}): Promise<Tenant> {
  const ws = await admin<{ workspaceId: string }>("POST", "/workspaces", { name: unique("ws"), plan: opts.plan ?? "free" });
  const wkey = await admin<{ secret: string }>("POST", `/workspaces/${ws.body.data.workspaceId}/keys`, { name: "ops" });
  const project = await call<{ projectId: string }>("POST", "/v1/projects", { key: wkey.body.data.secret, body: { name: unique("proj") } });
  const pkey = await call<{ secret: string; apiKeyId: string }>("POST", `/v1/projects/${project.body.data.projectId}/api-keys`, {
    key: wkey.body.data.secret,
    body: { name: "ci-key" },
  });
  const connectionId = opts.withConnection === false ? "" : await createConnection(pkey.body.data.secret);
  return {
    workspaceId: ws.body.data.workspaceId,
    workspaceKey: wkey.body.data.secret,
    projectId: project.body.data.projectId,
    projectKey: pkey.body.data.secret,
    projectKeyId: pkey.body.data.apiKeyId,
    connectionId,
    bucket: "media-test",
  };
}

/** Mints another project key on the tenant's project, e.g. with fewer permissions. */
export async function projectKey(t: Tenant, permissions?: string[]): Promise<{ secret: string; apiKeyId: string }> {
  const r = await call<{ secret: string; apiKeyId: string }>("POST", `/v1/projects/${t.projectId}/api-keys`, {
    key: t.workspaceKey,
    body: { name: unique("key"), ...(permissions ? { permissions } : {}) },
  });
  return r.body.data;
}

/** A storage connection to the test S3 server allowing only the `media-test` bucket; returns its id. */
export async function createConnection(projectKeySecret: string, extra: Record<string, unknown> = {}): Promise<string> {
  const s3 = inject("s3");
  const conn = await call<{ connectionId: string }>("POST", "/v1/storage-connections", {
    key: projectKeySecret,
    body: {
      name: unique("conn"),
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      buckets: ["media-test"],
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      ...extra,
    },
  });
  if (conn.status !== 201) throw new Error(`connection create failed: ${JSON.stringify(conn.body)}`);
  return conn.body.data.connectionId;
}

export interface ConsoleSession {
  sessionId: string;
  secret: string;
  userId: string;
  userHandle: string;
}

/** A console session key for the tenant's project, as user `userHandle` (a fresh one by default). */
export async function consoleSession(t: Tenant, userHandle = unique("user")): Promise<ConsoleSession> {
  const res = await call<ConsoleSession>("POST", "/v1/console/sessions", {
    key: t.workspaceKey,
    body: { projectId: t.projectId, userHandle },
  });
  if (res.status !== 201) throw new Error(`console session failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}
