import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError, runnerToken } from "./helpers/api";
import { submitTranscription, transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { consoleSession, createTenant, projectKey, unique, type Tenant } from "./helpers/tenant";

/**
 * One shared table of security cases run against every authenticated route (missing, malformed,
 * unknown and revoked keys; the wrong kind of key), then per-permission and per-project rules,
 * the public policy endpoint, and the operator and runner routes. Every refusal must come in the
 * error envelope.
 */

interface Fixtures {
  t: Tenant;
  other: Tenant;
  jobId: string;
  otherJobId: string;
  revokedKey: string;
  consoleKey: string;
}
const f = {} as Fixtures;

async function revoke(t: Tenant, keyId: string) {
  const res = await call("POST", `/v1/projects/${t.projectId}/api-keys/${keyId}/revoke`, { key: t.workspaceKey });
  if (res.status !== 200) throw new Error(`revoke failed: ${JSON.stringify(res.body)}`);
}

beforeAll(async () => {
  [f.t, f.other] = await Promise.all([createTenant(), createTenant()]);
  f.jobId = (await submitTranscription(f.t)).jobId;
  f.otherJobId = (await submitTranscription(f.other)).jobId;
  const doomed = await projectKey(f.t);
  await revoke(f.t, doomed.apiKeyId);
  f.revokedKey = doomed.secret;
  f.consoleKey = (await consoleSession(f.t)).secret;
});

type KeyKind = "project" | "workspace" | "console" | "any";
interface Route {
  name: string;
  method: string;
  path: () => string;
  /** Key kind the route accepts. */
  kind: KeyKind;
  body?: () => unknown;
}

const ROUTES: Route[] = [
  {
    name: "POST /v1/jobs",
    method: "POST",
    path: () => "/v1/jobs",
    kind: "project",
    body: () => ({ serviceType: "metadata", input: { textSourceId: "txt_x" } }),
  },
  { name: "GET /v1/jobs", method: "GET", path: () => "/v1/jobs", kind: "project" },
  { name: "GET /v1/jobs/:id", method: "GET", path: () => `/v1/jobs/${f.jobId}`, kind: "project" },
  { name: "POST /v1/jobs/:id/cancel", method: "POST", path: () => `/v1/jobs/${f.jobId}/cancel`, kind: "project" },
  { name: "GET /v1/jobs/:id/progress", method: "GET", path: () => `/v1/jobs/${f.jobId}/progress`, kind: "console" },
  { name: "GET /v1/jobs/:id/webhook-deliveries", method: "GET", path: () => `/v1/jobs/${f.jobId}/webhook-deliveries`, kind: "project" },
  { name: "GET /v1/workspace", method: "GET", path: () => "/v1/workspace", kind: "any" },
  { name: "GET /v1/projects", method: "GET", path: () => "/v1/projects", kind: "workspace" },
  { name: "POST /v1/projects", method: "POST", path: () => "/v1/projects", kind: "workspace", body: () => ({ name: unique("p") }) },
  { name: "GET /v1/projects/:id", method: "GET", path: () => `/v1/projects/${f.t.projectId}`, kind: "workspace" },
  {
    name: "POST /v1/projects/:id/webhook-secret",
    method: "POST",
    path: () => `/v1/projects/${f.t.projectId}/webhook-secret`,
    kind: "workspace",
  },
  { name: "GET /v1/projects/:id/api-keys", method: "GET", path: () => `/v1/projects/${f.t.projectId}/api-keys`, kind: "workspace" },
  {
    name: "POST /v1/projects/:id/api-keys",
    method: "POST",
    path: () => `/v1/projects/${f.t.projectId}/api-keys`,
    kind: "workspace",
    body: () => ({ name: unique("k") }),
  },
  {
    name: "POST /v1/console/sessions",
    method: "POST",
    path: () => "/v1/console/sessions",
    kind: "workspace",
    body: () => ({ projectId: f.t.projectId, userHandle: "ana" }),
  },
  { name: "GET /v1/storage-connections", method: "GET", path: () => "/v1/storage-connections", kind: "project" },
  { name: "GET /v1/storage-connections/:id", method: "GET", path: () => `/v1/storage-connections/${f.t.connectionId}`, kind: "project" },
  { name: "GET /v1/transcriptions/txt_anything", method: "GET", path: () => "/v1/transcriptions/txt_anything", kind: "project" },
  { name: "GET /v1/glossary", method: "GET", path: () => "/v1/glossary", kind: "project" },
];

const send = (r: Route, opts: { key?: string; headers?: Record<string, string> }) =>
  call(r.method, r.path(), { ...opts, ...(r.body ? { body: r.body() } : {}) });

describe("every authenticated route", () => {
  const credentials: Array<{ rule: string; opts: () => { key?: string; headers?: Record<string, string> } }> = [
    { rule: "a missing Authorization header is 401", opts: () => ({}) },
    {
      rule: "a malformed Authorization header (not Bearer) is 401",
      opts: () => ({ headers: { authorization: `Token ${f.t.projectKey}` } }),
    },
    { rule: "a Bearer header without a key is 401", opts: () => ({ headers: { authorization: "Bearer" } }) },
    { rule: "a key that is not a key is 401", opts: () => ({ key: "not-a-key" }) },
    { rule: "an unknown, well-formed key is 401", opts: () => ({ key: `sk_prj_${"0".repeat(32)}` }) },
    { rule: "a revoked key is 401", opts: () => ({ key: f.revokedKey }) },
  ];
  const cases = ROUTES.flatMap((route) => credentials.map((c) => ({ ...c, route, name: route.name })));

  it.each(cases)("$name: $rule", async ({ route, opts }) => {
    expectError(await send(route, opts()), 401, "unauthorized");
  });

  it.each(ROUTES.filter((r) => r.kind === "project" || r.kind === "console").map((route) => ({ route, name: route.name })))(
    "$name: a workspace key is 403",
    async ({ route }) => {
      expectError(await send(route, { key: f.t.workspaceKey }), 403, "forbidden");
    },
  );

  it.each(ROUTES.filter((r) => r.kind === "workspace").map((route) => ({ route, name: route.name })))(
    "$name: a project key is 403",
    async ({ route }) => {
      expectError(await send(route, { key: f.t.projectKey }), 403, "forbidden");
    },
  );
});

describe("key lifecycle", () => {
  it("a revoked key fails at once, on the very next call", async () => {
    const k = await projectKey(f.t);
    expect((await call("GET", "/v1/jobs", { key: k.secret })).status).toBe(200);
    await revoke(f.t, k.apiKeyId);
    expectError(await call("GET", "/v1/jobs", { key: k.secret }), 401, "unauthorized");
  });

  it("401 answers name the Bearer scheme in WWW-Authenticate", async () => {
    const res = await call("GET", "/v1/jobs");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });
});

describe("permissions", () => {
  const jobRoutes = {
    create: (key: string) => call<Job>("POST", "/v1/jobs", { key, body: transcriptionBody(f.t, "in/none.mp4") }),
    list: (key: string) => call("GET", "/v1/jobs", { key }),
    read: (key: string) => call("GET", `/v1/jobs/${f.jobId}`, { key }),
    cancel: (key: string) => call("POST", `/v1/jobs/${f.jobId}/cancel`, { key }),
  };

  it.each([
    { action: "create", permission: "job:create" },
    { action: "list", permission: "job:list" },
    { action: "cancel", permission: "job:cancel" },
  ] as const)("a key with only job:read cannot $action (403, missing $permission)", async ({ action, permission }) => {
    const k = await projectKey(f.t, ["job:read"]);
    const res = await jobRoutes[action](k.secret);
    expectError(res, 403, "forbidden");
    expect(res.body.error?.details).toEqual([{ path: "authorization", issue: `missingPermission:${permission}` }]);
  });

  it("a key with only job:read can read a job", async () => {
    const k = await projectKey(f.t, ["job:read"]);
    expect((await jobRoutes.read(k.secret)).status).toBe(200);
  });

  it("job:* grants every job permission", async () => {
    const k = await projectKey(f.t, ["job:*"]);
    const source = await putSource(`${unique("auth")}/wild.mp4`);
    const created = await call<Job>("POST", "/v1/jobs", { key: k.secret, body: transcriptionBody(f.t, source) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await jobRoutes.list(k.secret)).status).toBe(200);
    expect((await call("GET", `/v1/jobs/${created.body.data.jobId}`, { key: k.secret })).status).toBe(200);
    expect((await call("POST", `/v1/jobs/${created.body.data.jobId}/cancel`, { key: k.secret })).status).toBe(200);
  });

  it("job:* does not grant other resources' permissions", async () => {
    const k = await projectKey(f.t, ["job:*"]);
    expectError(await call("GET", "/v1/storage-connections", { key: k.secret }), 403, "forbidden");
  });
});

describe("another project's job", () => {
  it.each([
    { method: "GET", suffix: "" },
    { method: "POST", suffix: "/cancel" },
    { method: "GET", suffix: "/webhook-deliveries" },
  ])("$method /v1/jobs/{jobId}$suffix is 404, as if it did not exist", async ({ method, suffix }) => {
    const res = await call(method, `/v1/jobs/${f.otherJobId}${suffix}`, { key: f.t.projectKey });
    expectError(res, 404, "notFound");
    expect(res.body.error?.details).toEqual([{ path: "jobId", issue: `notFound:${f.otherJobId}` }]);
  });

  it("its progress is 404 for a console session of this project", async () => {
    expectError(await call("GET", `/v1/jobs/${f.otherJobId}/progress`, { key: f.consoleKey }), 404, "notFound");
  });

  it("it is never listed", async () => {
    const res = await call<Job[]>("GET", "/v1/jobs?limit=100", { key: f.t.projectKey });
    expect(res.body.data.map((j) => j.jobId)).not.toContain(f.otherJobId);
  });
});

describe("GET /v1/jobs/{jobId}/progress", () => {
  it("a project key is 403", async () => {
    expectError(await call("GET", `/v1/jobs/${f.jobId}/progress`, { key: f.t.projectKey }), 403, "forbidden");
  });

  it("a console session is 200 with progress, currentStage and attemptHistory", async () => {
    const res = await call("GET", `/v1/jobs/${f.jobId}/progress`, { key: f.consoleKey });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ progress: expect.any(Array), currentStage: null, attemptHistory: [] });
  });
});

describe("GET /v1/jobs/policy", () => {
  it("needs no authentication", async () => {
    const res = await call<{ plans: Record<string, unknown> }>("GET", "/v1/jobs/policy?serviceType=clip_generation");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data.plans)).toEqual(expect.arrayContaining(["free", "enterprise"]));
  });

  it.each(["metadata", "", "CLIP_GENERATION"])("serviceType=%j is 422", async (serviceType) => {
    const res = await call("GET", `/v1/jobs/policy?serviceType=${serviceType}`);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "query.serviceType", issue: "invalidValue" }]);
  });

  it("a missing serviceType is 422", async () => {
    const res = await call("GET", "/v1/jobs/policy");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "query.serviceType", issue: "required" }]);
  });
});

describe("operator and runner routes", () => {
  const customerKeys = [
    { kind: "project key", key: () => f.t.projectKey },
    { kind: "workspace key", key: () => f.t.workspaceKey },
    { kind: "console session", key: () => f.consoleKey },
  ];

  it.each(customerKeys)("admin routes reject a $kind (401)", async ({ key }) => {
    expectError(await call("POST", "/admin/v1/workspaces", { key: key(), body: { name: unique("ws") } }), 401, "unauthorized");
  });

  it.each(customerKeys)("runner routes reject a $kind (401)", async ({ key }) => {
    expectError(
      await call("POST", "/runner/v1/lease", { key: key(), body: { runnerId: "r1", handlers: ["transcription"] } }),
      401,
      "unauthorized",
    );
  });

  it("the runner token does not open admin routes", async () => {
    expectError(await call("GET", "/admin/v1/settings", { key: await runnerToken() }), 401, "unauthorized");
  });
});
