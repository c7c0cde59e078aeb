import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { buildApp } from "../../worker/app";
import { PROJECT_PERMISSIONS, WORKSPACE_PERMISSIONS } from "../../worker/auth/permissions";
import { ROUTE_ACCESS, SECRET_PREFIXES, type RouteRule } from "../../worker/auth/route-access";
import { getDb } from "../../worker/db/client";
import { apiKeys } from "../../worker/db/schema";
import { openAuditEvent } from "../../worker/deletion/audit-log";
import { ALL_OPERATIONS } from "../../worker/openapi/document";
import { sha256Hex } from "../../worker/platform/crypto";
import { admin, call, expectError, runnerToken, type ApiResponse } from "./helpers/api";
import { createUser, signIn } from "./helpers/console";
import { submitTranscription, transcriptionBody } from "./helpers/jobs";
import { seedServiceRecords } from "./helpers/records";
import { saveTranscriptRow } from "./helpers/transcripts";
import { putSource } from "./helpers/s3";
import { consoleSession, createTenant, projectKey, unique, type Tenant } from "./helpers/tenant";

/**
 * The security cases of every route, generated from the access table (worker/auth/route-access.ts),
 * as unkey's `*.security.test.ts` run one shared suite over every route: no key, a malformed, unknown
 * or revoked key → 401; a key of the wrong kind → 403; a key holding every permission but the
 * route's → 403 `missingPermission:<perm>`; another tenant's key on a route that names a record →
 * 404, and never another tenant's data. Public routes answer without credentials; operator and
 * runner routes refuse customer keys. A route added to the app without a rule fails the first block.
 */

type Keyed = Exclude<RouteRule, { access: "public" } | { access: "signed" }>;
interface Route {
  key: string;
  method: string;
  path: string;
  rule: RouteRule;
}

const isConsolePage = (path: string) => path === "/console" || path.startsWith("/console/");
const app = buildApp();
/** `METHOD /path` of every handler the app registers (middleware is registered as ALL), console pages aside. */
const APP_ROUTES = [...new Set(app.routes.filter((r) => r.method !== "ALL" && !isConsolePage(r.path)).map((r) => `${r.method} ${r.path}`))];
const underSecret = (key: string) => Object.keys(SECRET_PREFIXES).some((prefix) => key.split(" ")[1]?.startsWith(prefix));

const ROUTES: Route[] = Object.entries(ROUTE_ACCESS).map(([key, rule]) => {
  const [method, path] = key.split(" ") as [string, string];
  return { key, method, path, rule };
});
const KEYED = ROUTES.filter((r): r is Route & { rule: Keyed } => r.rule.access !== "public" && r.rule.access !== "signed");
const PUBLIC = ROUTES.filter((r) => r.rule.access === "public");
const SIGNED = ROUTES.filter((r) => r.rule.access === "signed");
const namesRecord = (r: Route) => r.path.includes("/:");

/** Everything the cases need, shared by the whole file: two tenants, and records of tenant A. */
interface World {
  a: Tenant;
  b: Tenant;
  /** Path parameters naming tenant A's records. */
  params: Record<string, string>;
  /** Ids of tenant A that no answer to tenant B may contain. */
  secretsOfA: string[];
  /** A key of each kind per tenant with every permission (for console: an admin signed in). */
  full: Record<"a" | "b", Record<Keyed["access"], string>>;
  revoked: Record<Keyed["access"], string>;
}
const w = {} as World;

async function workspaceKey(t: Tenant, permissions?: string[]): Promise<string> {
  const res = await admin<{ secret: string }>("POST", `/workspaces/${t.workspaceId}/keys`, {
    name: unique("wkey"),
    ...(permissions ? { permissions } : {}),
  });
  if (res.status !== 201) throw new Error(`workspace key failed: ${JSON.stringify(res.body)}`);
  return res.body.data.secret;
}

/** A signed-in admin's session secret, sent as a Bearer key (the cookie's value; no CSRF for Bearer). */
async function adminSession(t: Tenant): Promise<{ secret: string; userId: string }> {
  const user = await createUser(t, { role: "admin" });
  const browser = await signIn(user.email, user.password, { projectId: t.projectId });
  return { secret: browser.cookie.split("=")[1] ?? "", userId: user.userId };
}

/** Narrows a key's grant in D1: console sessions are minted with every project permission. */
async function setPermissions(secret: string, permissions: string[]): Promise<void> {
  await getDb(env.DB)
    .update(apiKeys)
    .set({ permissions })
    .where(eq(apiKeys.secretHash, await sha256Hex(secret)));
}

beforeAll(async () => {
  const [a, b] = await Promise.all([createTenant(), createTenant()]);
  w.a = a;
  w.b = b;
  const job = await submitTranscription(a);
  const transcriptionId = String(job.input["textSourceId"]);
  const records = await seedServiceRecords(a.projectId, transcriptionId, job.jobId);
  // Completed as the transcription sink saves it: routes that read a transcript's content (the export) answer only then.
  await saveTranscriptRow(a.projectId, transcriptionId, [{ id: 0, start: 0, end: 1, text: "tenant A's words" }]);
  const term = await call<{ termId: string }>("POST", "/v1/glossary", { key: a.projectKey, body: { term: unique("t"), preferred: "T" } });
  const steps = [{ id: "transcribe", ...transcriptionBody(a, await putSource(`${unique("wf")}/clip.mp4`)) }];
  const preset = await call<{ presetId: string }>("POST", "/v1/presets", { key: a.projectKey, body: { name: unique("preset"), steps } });
  const workflow = await call<{ workflowId: string }>("POST", "/v1/workflows", { key: a.projectKey, body: { steps } });
  const [sessionA, sessionB] = await Promise.all([adminSession(a), adminSession(b)]);
  const memberOfA = await createUser(a);
  // Full keys hold every permission, the explicit-only ones too (the default grant leaves those out).
  const [fullA, fullB] = await Promise.all([projectKey(a, [...PROJECT_PERMISSIONS]), projectKey(b, [...PROJECT_PERMISSIONS])]);
  const audit = await openAuditEvent(getDb(env.DB), {
    workspaceId: a.workspaceId,
    projectId: a.projectId,
    action: "voice.deleted",
    subject: { type: "voice", id: "vce_none" },
    actor: { kind: "api_key", id: a.projectKeyId, label: "ci-key" },
    pending: {},
  });
  w.params = {
    jobId: job.jobId,
    deliveryId: "whd_none",
    projectId: a.projectId,
    keyId: a.projectKeyId,
    userId: memberOfA.userId,
    connectionId: a.connectionId,
    transcriptionId,
    textSourceId: transcriptionId,
    termId: term.body.data.termId,
    presetId: preset.body.data.presetId,
    workflowId: workflow.body.data.workflowId,
    auditEventId: audit.id,
    ...records,
  };
  w.secretsOfA = [...new Set(Object.values(w.params).filter((v) => /^[a-z]{3}_[0-9A-Za-z]{8,}$/.test(v))), a.projectKeyId];
  w.full = {
    a: { project: fullA.secret, workspace: a.workspaceKey, anyKey: fullA.secret, console: sessionA.secret },
    b: { project: fullB.secret, workspace: b.workspaceKey, anyKey: fullB.secret, console: sessionB.secret },
  };
  // Revoked keys of each kind: a project key through the API, a workspace key in D1, a console session signed out.
  const doomed = await projectKey(a);
  await call("POST", `/v1/projects/${a.projectId}/api-keys/${doomed.apiKeyId}/revoke`, { key: a.workspaceKey });
  const doomedWorkspace = await workspaceKey(a);
  await getDb(env.DB)
    .update(apiKeys)
    .set({ revokedAt: new Date().toISOString() })
    .where(eq(apiKeys.secretHash, await sha256Hex(doomedWorkspace)));
  const doomedSession = await adminSession(a);
  await call("POST", "/v1/console/sign-out", { key: doomedSession.secret });
  w.revoked = { project: doomed.secret, workspace: doomedWorkspace, anyKey: doomed.secret, console: doomedSession.secret };
}, 60_000);

/** Bodies that pass validation, for the routes that read one before they look their record up. */
const BODIES: Record<string, () => unknown> = {
  "POST /v1/jobs": () => ({ serviceType: "metadata", input: { textSourceId: w.params["transcriptionId"] } }),
  "POST /v1/projects": () => ({ name: unique("p") }),
  "PATCH /v1/projects/:projectId": () => ({ webhookUrl: null }),
  "POST /v1/projects/:projectId/api-keys": () => ({ name: unique("k") }),
  "POST /v1/console/sessions": () => ({ projectId: w.a.projectId, userHandle: "ana" }),
  "POST /v1/console/session/project": () => ({ projectId: w.a.projectId }),
  "POST /v1/console/invitations": () => ({ email: `${unique("i")}@example.com` }),
  "PATCH /v1/transcriptions/:transcriptionId/segments": () => ({ revision: 1, segments: [{ id: 0, text: "x" }] }),
  "PATCH /v1/transcriptions/:transcriptionId/speakers": () => ({ revision: 1, names: { SPEAKER_00: "x" } }),
  "POST /v1/transcriptions/:transcriptionId/regenerate": () => ({ outputs: { metadata: true } }),
  "POST /v1/glossary": () => ({ term: unique("t"), preferred: "T" }),
  "POST /v1/catalog/search": () => ({ query: "anything" }),
  "POST /v1/voice-consents": () => ({
    kind: "attestation",
    subject: { transcriptionId: w.params["transcriptionId"], speakerLabel: "SPEAKER_00" },
    statement: "Ana agreed in writing to a clone of her voice.",
  }),
  "POST /v1/voice-consents/phrases": () => ({ speakerName: "Ana" }),
  "PUT /v1/presets/:presetId": () => ({
    name: unique("preset"),
    steps: [{ id: "m", serviceType: "metadata", input: { textSourceId: "{{vars.t}}" } }],
  }),
  "PUT /v1/storage-connections/:connectionId/triggers": () => ({ triggers: [] }),
};

/** Query strings that pass validation, for the routes that need one before they look their record up. */
const QUERIES: Record<string, string> = {
  "GET /v1/transcriptions/:transcriptionId/export": "?format=json",
};

const pathOf = (r: Route) =>
  r.path.replace(/:([A-Za-z]+)/g, (_, name: string) => w.params[name] ?? `missing-${name}`) + (QUERIES[r.key] ?? "");

function send(r: Route, opts: { key?: string; headers?: Record<string, string>; body?: unknown }): Promise<ApiResponse> {
  const body = opts.body ?? BODIES[r.key]?.();
  return call(r.method, pathOf(r), { ...opts, ...(body !== undefined ? { body } : {}) });
}

const permissionOf = (rule: Keyed): string | undefined =>
  rule.access === "anyKey" ? undefined : "permission" in rule ? (rule.permission as string | undefined) : undefined;

describe("the access table", () => {
  it("names every route the app registers (a route without a rule cannot ship)", () => {
    const missing = APP_ROUTES.filter((k) => !(k in ROUTE_ACCESS) && !underSecret(k));
    expect(missing).toEqual([]);
  });

  it("names no route the app does not have", () => {
    const registered = new Set(APP_ROUTES);
    expect(Object.keys(ROUTE_ACCESS).filter((k) => !registered.has(k))).toEqual([]);
  });

  it("is what the OpenAPI document says of each route's access and permission", () => {
    const differ = ALL_OPERATIONS.flatMap((op) => {
      const key = `${op.method.toUpperCase()} ${op.path}`;
      const rule = (ROUTE_ACCESS as Record<string, RouteRule>)[key];
      if (!rule) return underSecret(key) ? [] : [`${key}: not in the table`];
      const permission = rule.access === "anyKey" ? rule.workspacePermission : "permission" in rule ? rule.permission : undefined;
      const documented = op.permission?.split(" ")[0];
      return op.access !== rule.access || documented !== permission
        ? [`${key}: ${op.access}/${op.permission} vs ${rule.access}/${permission}`]
        : [];
    });
    expect(differ).toEqual([]);
  });
});

describe("every keyed route", () => {
  const credentials: Array<{ rule: string; opts: (r: Route & { rule: Keyed }) => { key?: string; headers?: Record<string, string> } }> = [
    { rule: "no Authorization header is 401", opts: () => ({}) },
    { rule: "a header that is not Bearer is 401", opts: () => ({ headers: { authorization: `Token ${w.a.projectKey}` } }) },
    { rule: "Bearer without a key is 401", opts: () => ({ headers: { authorization: "Bearer" } }) },
    { rule: "a token that is not a key is 401", opts: () => ({ key: "not-a-key" }) },
    { rule: "an unknown, well-formed key is 401", opts: () => ({ key: `sk_prj_${"0".repeat(32)}` }) },
    { rule: "a revoked key of its kind is 401", opts: (r) => ({ key: w.revoked[r.rule.access] }) },
  ];
  it.each(KEYED.flatMap((route) => credentials.map((c) => ({ ...c, route, name: route.key }))))("$name: $rule", async ({ route, opts }) => {
    expectError(await send(route, opts(route)), 401, "unauthorized");
  });

  const wrongKinds = (r: Route & { rule: Keyed }): Array<[kind: string, key: () => string]> => {
    switch (r.rule.access) {
      case "project":
        return [["a workspace key", () => w.a.workspaceKey]];
      case "workspace":
        return [
          ["a project key", () => w.a.projectKey],
          ["a console session", () => w.full.a.console],
        ];
      case "console":
        return [
          ["a project key", () => w.a.projectKey],
          ["a workspace key", () => w.a.workspaceKey],
        ];
      case "anyKey":
        return [];
    }
  };
  it.each(KEYED.flatMap((route) => wrongKinds(route).map(([kind, key]) => ({ route, kind, key, name: route.key }))))(
    "$name: $kind is 403",
    async ({ route, key }) => {
      expectError(await send(route, { key: key() }), 403, "forbidden");
    },
  );

  /** A key of the route's kind holding every permission of its kind except `permission`. */
  const keysWithout = new Map<string, Promise<string>>();
  function keyWithout(access: Keyed["access"], permission: string): Promise<string> {
    const id = `${access}:${permission}`;
    let key = keysWithout.get(id);
    if (!key) {
      key =
        access === "workspace"
          ? workspaceKey(
              w.a,
              WORKSPACE_PERMISSIONS.filter((p) => p !== permission),
            )
          : access === "console"
            ? consoleSession(w.a).then(async (s) => {
                await setPermissions(
                  s.secret,
                  PROJECT_PERMISSIONS.filter((p) => p !== permission),
                );
                return s.secret;
              })
            : projectKey(
                w.a,
                PROJECT_PERMISSIONS.filter((p) => p !== permission),
              ).then((k) => k.secret);
      keysWithout.set(id, key);
    }
    return key;
  }

  const permissionCases = KEYED.flatMap((route) => {
    const cases: Array<{ route: Route & { rule: Keyed }; access: Keyed["access"]; permission: string; body?: () => unknown }> = [];
    const permission = permissionOf(route.rule);
    if (permission) cases.push({ route, access: route.rule.access, permission });
    if (route.rule.access === "anyKey" && route.rule.workspacePermission)
      cases.push({ route, access: "workspace", permission: route.rule.workspacePermission });
    if (route.rule.access === "project" && route.rule.also) cases.push({ route, access: "project", permission: route.rule.also });
    if (route.rule.access === "project")
      for (const [serviceType, extra] of Object.entries(route.rule.byServiceType ?? {}))
        cases.push({ route, access: "project", permission: extra, body: () => ({ serviceType, input: {} }) });
    return cases.map((c) => ({ ...c, name: `${route.key}${c.body ? ` (${JSON.stringify(c.body())})` : ""}` }));
  });
  it.each(permissionCases)("$name: a key without $permission is 403 missingPermission", async ({ route, access, permission, body }) => {
    const res = await send(route, { key: await keyWithout(access, permission), ...(body ? { body: body() } : {}) });
    expectError(res, 403, "forbidden");
    expect(res.body.error?.details).toEqual([{ path: "authorization", issue: `missingPermission:${permission}` }]);
  });

  const recordRoutes = KEYED.filter(namesRecord).map((route) => ({ route, name: route.key }));
  it.each(recordRoutes)("$name: another tenant's key on tenant A's record is 404", async ({ route }) => {
    const res = await send(route, { key: w.full.b[route.rule.access] });
    expectError(res, 404, "notFound");
  });

  it.each(recordRoutes.filter(({ route }) => route.method === "GET"))(
    "$name: tenant A's own key reads it (the record the 404 hides is real)",
    async ({ route }) => {
      const res = await send(route, { key: w.full.a[route.rule.access] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    },
  );

  it.each(KEYED.filter((r) => r.method === "GET" && !namesRecord(r)).map((route) => ({ route, name: route.key })))(
    "$name: another tenant's answer holds none of tenant A's ids",
    async ({ route }) => {
      const res = await send(route, { key: w.full.b[route.rule.access] });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const text = JSON.stringify(res.body);
      expect(w.secretsOfA.filter((id) => text.includes(id))).toEqual([]);
    },
  );
});

describe("public routes", () => {
  it.each(PUBLIC.map((route) => ({ route, name: route.key })))(
    "$name answers without credentials (never 401 or 403)",
    async ({ route }) => {
      // Some answer HTML or text (the reference page): only the status is read.
      const res = await exports.default.fetch(new Request(`http://media-jobs.test${route.path}`, { method: route.method }));
      await res.body?.cancel();
      expect([401, 403]).not.toContain(res.status);
    },
  );
});

describe("signed routes", () => {
  it.each(SIGNED.map((route) => ({ route, name: route.key })))(
    "$name answers 401 unsigned, and to any key of the project (a key is not the record's secret)",
    async ({ route }) => {
      expectError(await send(route, {}), 401, "unauthorized");
      expectError(await send(route, { key: w.full.a.project }), 401, "unauthorized");
    },
  );
});

describe("operator and runner routes", () => {
  const secretRoutes = APP_ROUTES.filter(underSecret).map((key) => {
    const [method, path] = key.split(" ") as [string, string];
    return { method, path: path.replace(/:([A-Za-z]+)/g, "x"), name: key };
  });
  const wrong: Array<{ kind: string; key: () => string }> = [
    { kind: "a project key", key: () => w.a.projectKey },
    { kind: "a workspace key", key: () => w.a.workspaceKey },
    { kind: "a console session", key: () => w.full.a.console },
    { kind: "a made-up token", key: () => "not-the-secret" },
  ];

  it.each(secretRoutes)("$name: no credentials is 401", async ({ method, path }) => {
    expectError(await call(method, path, method === "GET" ? {} : { body: {} }), 401, "unauthorized");
  });

  it.each(secretRoutes.flatMap((r) => wrong.map((k) => ({ ...r, ...k }))))("$name: $kind is 401", async ({ method, path, key }) => {
    expectError(await call(method, path, { key: key(), ...(method === "GET" ? {} : { body: {} }) }), 401, "unauthorized");
  });

  it("a runner's own token does not open the operator routes", async () => {
    expectError(await call("GET", "/admin/v1/settings", { key: await runnerToken() }), 401, "unauthorized");
  });
});

describe("voice_creation through POST /v1/jobs", () => {
  const voiceBody = async () => ({
    serviceType: "voice_creation",
    input: {
      name: "v",
      connectionId: w.a.connectionId,
      bucket: w.a.bucket,
      sourceKey: await putSource(`${unique("voice")}/s.wav`),
      language: "en",
    },
  });

  it("a key with job:create but not voice:write cannot create a voice (403 missingPermission:voice:write)", async () => {
    const k = await projectKey(w.a, ["job:create", "job:read"]);
    const res = await call("POST", "/v1/jobs", { key: k.secret, body: await voiceBody() });
    expectError(res, 403, "forbidden");
    expect(res.body.error?.details).toEqual([{ path: "authorization", issue: "missingPermission:voice:write" }]);
  });

  it("a key with job:create and voice:write can", async () => {
    const k = await projectKey(w.a, ["job:create", "voice:write"]);
    const res = await call<Job>("POST", "/v1/jobs", { key: k.secret, body: await voiceBody() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.serviceType).toBe("voice_creation");
  });

  it("other service types need only job:create", async () => {
    const k = await projectKey(w.a, ["job:create"]);
    const source = await putSource(`${unique("auth")}/only-create.mp4`);
    const res = await call("POST", "/v1/jobs", { key: k.secret, body: transcriptionBody(w.a, source) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe("POST /v1/audio/transcriptions (the OpenAI-compatible endpoint)", () => {
  const upload = async (key: string) => {
    const form = new FormData();
    form.append("file", new File([new TextEncoder().encode("pretend audio")], "talk.mp3"));
    form.append("model", "whisper-1");
    const res = await exports.default.fetch(
      new Request("http://media-jobs.test/v1/audio/transcriptions", {
        method: "POST",
        headers: { authorization: `Bearer ${key}` },
        body: form,
      }),
    );
    return { status: res.status, body: (await res.json()) as { data: Job } };
  };

  it("job:create and transcript:read are enough, and the job and its upload are the key's own project's", async () => {
    await admin("PATCH", "/settings", { transcription: { openAiWaitSeconds: 0 } });
    try {
      const k = await projectKey(w.b, ["job:create", "transcript:read"]);
      const res = await upload(k.secret);
      expect(res.status, JSON.stringify(res.body)).toBe(202);
      expect(res.body.data).toMatchObject({ projectId: w.b.projectId, input: { connectionId: w.b.connectionId } });
      await call("POST", `/v1/jobs/${res.body.data.jobId}/cancel`, { key: w.b.projectKey });
    } finally {
      await admin("PATCH", "/settings", { transcription: { openAiWaitSeconds: 60 } });
    }
  });
});

describe("key lifecycle and wildcards", () => {
  it("a revoked key fails at once, on the very next call", async () => {
    const k = await projectKey(w.a);
    expect((await call("GET", "/v1/jobs", { key: k.secret })).status).toBe(200);
    await call("POST", `/v1/projects/${w.a.projectId}/api-keys/${k.apiKeyId}/revoke`, { key: w.a.workspaceKey });
    expectError(await call("GET", "/v1/jobs", { key: k.secret }), 401, "unauthorized");
  });

  it("401 answers name the Bearer scheme in WWW-Authenticate", async () => {
    const res = await call("GET", "/v1/jobs");
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer /);
  });

  it("an unknown /v1 path needs a key before it is a 404", async () => {
    expectError(await call("GET", "/v1/nothing-here"), 401, "unauthorized");
    expectError(await call("GET", "/v1/nothing-here", { key: w.a.projectKey }), 404, "notFound");
  });

  it("job:* grants every job permission", async () => {
    const k = await projectKey(w.a, ["job:*"]);
    const source = await putSource(`${unique("auth")}/wild.mp4`);
    const created = await call<Job>("POST", "/v1/jobs", { key: k.secret, body: transcriptionBody(w.a, source) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect((await call("GET", "/v1/jobs", { key: k.secret })).status).toBe(200);
    expect((await call("GET", `/v1/jobs/${created.body.data.jobId}`, { key: k.secret })).status).toBe(200);
    expect((await call("POST", `/v1/jobs/${created.body.data.jobId}/cancel`, { key: k.secret })).status).toBe(200);
  });

  it("job:* does not grant other resources' permissions", async () => {
    const k = await projectKey(w.a, ["job:*"]);
    expectError(await call("GET", "/v1/storage-connections", { key: k.secret }), 403, "forbidden");
  });
});

describe("GET /v1/jobs/{jobId}/progress", () => {
  it("a console session of the project reads progress, currentStage and attemptHistory", async () => {
    const s = await consoleSession(w.a);
    const res = await call("GET", `/v1/jobs/${w.params["jobId"]}/progress`, { key: s.secret });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ progress: expect.any(Array), currentStage: null, attemptHistory: [] });
  });
});

describe("GET /v1/jobs/policy", () => {
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
