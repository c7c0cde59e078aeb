import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError } from "./helpers/api";
import { Browser, createUser, LOOPBACK_SITE, PASSWORD, send, signedIn, signIn, type SessionView } from "./helpers/console";
import { submitTranscription, transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/** Console sign-in: the session cookie, CSRF on state-changing requests, sign-out and expiry. */

let t: Tenant;
let jobId: string;

beforeAll(async () => {
  t = await createTenant();
  jobId = (await submitTranscription(t)).jobId;
});

const setSessionRow = (sessionId: string, column: "expires_at" | "idle_expires_at", at: string) =>
  env.DB.prepare(`UPDATE api_keys SET ${column} = ? WHERE id = ?`).bind(at, sessionId).run();
const sessionRow = (sessionId: string) =>
  env.DB.prepare("SELECT idle_expires_at, revoked_at FROM api_keys WHERE id = ?")
    .bind(sessionId)
    .first<{ idle_expires_at: string; revoked_at: string | null }>();

async function createJob(browser: Browser, csrf?: string | null) {
  const key = await putSource(`${unique("console")}/clip.mp4`);
  return browser.request<Job>("POST", "/v1/jobs", { body: transcriptionBody(t, key), ...(csrf !== undefined ? { csrf } : {}) });
}

describe("POST /v1/console/sign-in", () => {
  it("sets an HttpOnly, SameSite=Lax, Secure __Host- cookie off loopback", async () => {
    const user = await createUser(t);
    const res = await send("POST", "/v1/console/sign-in", { body: { email: user.email, password: user.password } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^__Host-media_jobs_console=sk_con_[0-9a-z]{32};/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; Secure/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; Max-Age=43200/);
  });

  it("on loopback the cookie is not Secure (and not __Host-)", async () => {
    const user = await createUser(t);
    const res = await send("POST", "/v1/console/sign-in", { site: LOOPBACK_SITE, body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^media_jobs_console=sk_con_/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it("answers the user, the workspace, the session's project and a CSRF token, never the secret", async () => {
    const user = await createUser(t, { role: "admin" });
    const res = await send<SessionView>("POST", "/v1/console/sign-in", { body: { email: user.email, password: user.password } });
    expect(res.body.data).toMatchObject({
      sessionId: expect.stringMatching(/^cse_/),
      user: { userId: user.userId, email: user.email, role: "admin", workspaceId: t.workspaceId },
      workspace: { workspaceId: t.workspaceId },
      project: { projectId: t.projectId },
      csrfToken: expect.stringMatching(/^[\w-]{43}$/),
    });
    expect(JSON.stringify(res.body)).not.toMatch(/sk_con_/);
  });

  it("a wrong password and an unknown email get the same 401", async () => {
    const user = await createUser(t);
    const wrong = await send("POST", "/v1/console/sign-in", { body: { email: user.email, password: "not the password at all" } });
    const unknown = await send("POST", "/v1/console/sign-in", { body: { email: `${unique("nobody")}@example.com`, password: PASSWORD } });
    expectError(wrong, 401, "unauthorized");
    expect(unknown.status).toBe(wrong.status);
    expect(unknown.body).toEqual(wrong.body);
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  it("the email is matched whatever its case and surrounding spaces", async () => {
    const user = await createUser(t);
    const res = await send("POST", "/v1/console/sign-in", { body: { email: `  ${user.email.toUpperCase()} `, password: user.password } });
    expect(res.status).toBe(200);
  });

  it("a sign-in posted from another origin is 403", async () => {
    const user = await createUser(t);
    const res = await send("POST", "/v1/console/sign-in", {
      origin: "https://evil.example",
      body: { email: user.email, password: user.password },
    });
    expectError(res, 403, "forbidden");
  });

  it("sign-in answers no-store: its body holds the CSRF token and its Set-Cookie the session", async () => {
    const user = await createUser(t);
    const res = await send("POST", "/v1/console/sign-in", { body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  // Throttling: console-sign-in-throttle.test.ts.
});

describe("the session cookie authenticates API calls", () => {
  it("the console-only progress endpoint answers the cookie", async () => {
    const { browser } = await signedIn(t);
    const res = await browser.get(`/v1/jobs/${jobId}/progress`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({ progress: expect.any(Array) });
  });

  it("a project key on the progress endpoint is still 403", async () => {
    expectError(await call("GET", `/v1/jobs/${jobId}/progress`, { key: t.projectKey }), 403, "forbidden");
  });

  it("a cookie that carries a project key instead of a session is 401", async () => {
    const res = await send("GET", "/v1/jobs", { cookie: `__Host-media_jobs_console=${t.projectKey}` });
    expectError(res, 401, "unauthorized");
  });

  it("a job created through the cookie records createdByKind console and the signed-in user", async () => {
    const { user, browser } = await signedIn(t);
    const res = await createJob(browser);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      createdByKind: "console",
      createdByLabel: user.email,
      isConsoleKey: true,
      apiKeyId: browser.session.sessionId,
    });
  });

  it("a cancel through the cookie records cancelRequestedByKind console and the user's id", async () => {
    const { user, browser } = await signedIn(t);
    const job = await submitTranscription(t);
    const res = await browser.post<Job>(`/v1/jobs/${job.jobId}/cancel`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data).toMatchObject({
      cancelRequestedByKind: "console",
      cancelRequestedByLabel: user.email,
      cancelRequestedByUserId: user.userId,
    });
  });
});

describe("CSRF on state-changing requests authenticated by the cookie", () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = (await signedIn(t)).browser;
  });

  it("without X-CSRF-Token: 403", async () => {
    const res = await createJob(browser, null);
    expectError(res, 403, "forbidden");
    expect(res.body.error?.message).toMatch(/X-CSRF-Token/);
  });

  it("with a wrong X-CSRF-Token: 403", async () => {
    const other = (await signedIn(t)).browser;
    expectError(await createJob(browser, other.csrfToken), 403, "forbidden");
  });

  it("with the session's token: the request goes through", async () => {
    expect((await createJob(browser)).status).toBe(201);
  });

  it("from another origin: 403 even with the token", async () => {
    const res = await browser.post(`/v1/jobs/${jobId}/cancel`, undefined, { origin: "https://evil.example" });
    expectError(res, 403, "forbidden");
    expect(res.body.error?.message).toMatch(/cross-origin/);
  });

  it("a cross-site Sec-Fetch-Site without Origin: 403", async () => {
    const res = await browser.post(`/v1/jobs/${jobId}/cancel`, undefined, { origin: null, headers: { "sec-fetch-site": "cross-site" } });
    expectError(res, 403, "forbidden");
  });

  it("a GET needs no token", async () => {
    expect((await browser.request("GET", "/v1/jobs", { csrf: null })).status).toBe(200);
  });

  it("a Bearer-key request is not subject to it", async () => {
    const key = await putSource(`${unique("bearer")}/clip.mp4`);
    const res = await call("POST", "/v1/jobs", {
      key: t.projectKey,
      body: transcriptionBody(t, key),
      headers: { origin: "https://elsewhere.example" },
    });
    expect(res.status).toBe(201);
  });

  it("GET /v1/console/session hands out the same token again", async () => {
    const res = await browser.get<SessionView>("/v1/console/session");
    expect(res.status).toBe(200);
    expect(res.body.data.csrfToken).toBe(browser.csrfToken);
  });
});

describe("sign-out and expiry", () => {
  it("sign-out ends the session at once: the next request with the cookie is 401", async () => {
    const { browser } = await signedIn(t);
    const out = await browser.post("/v1/console/sign-out");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^__Host-media_jobs_console=; Max-Age=0/);
    expectError(await browser.get("/v1/console/session"), 401, "unauthorized");
  });

  it("sign-out is a state-changing request: without the CSRF token it is 403 and the session lives on", async () => {
    const { browser } = await signedIn(t);
    expectError(await browser.post("/v1/console/sign-out", undefined, { csrf: null }), 403, "forbidden");
    expect((await browser.get("/v1/console/session")).status).toBe(200);
  });

  it("a session past its absolute expiry is 401", async () => {
    const { browser } = await signedIn(t);
    await setSessionRow(browser.session.sessionId, "expires_at", new Date(Date.now() - 1000).toISOString());
    expectError(await browser.get("/v1/console/session"), 401, "unauthorized");
  });

  it("a session idle past its idle expiry is 401", async () => {
    const { browser } = await signedIn(t);
    await setSessionRow(browser.session.sessionId, "idle_expires_at", new Date(Date.now() - 1000).toISOString());
    const res = await browser.get("/v1/console/session");
    expectError(res, 401, "unauthorized");
    expect(res.body.error?.message).toMatch(/inactivity/);
  });

  it("using the session pushes its idle expiry on (30 minutes from the last use)", async () => {
    const { browser } = await signedIn(t);
    const soon = new Date(Date.now() + 5 * 60_000).toISOString();
    await setSessionRow(browser.session.sessionId, "idle_expires_at", soon);
    expect((await browser.get("/v1/console/session")).status).toBe(200);
    const row = await sessionRow(browser.session.sessionId);
    expect(Date.parse(row?.idle_expires_at ?? "")).toBeGreaterThan(Date.now() + 25 * 60_000);
  });

  it("sign-in sets a 12-hour absolute expiry and a 30-minute idle expiry", async () => {
    const { browser } = await signedIn(t);
    // Both ends are counted from the same instant: the absolute end minus 12 h is the sign-in.
    const started = Date.parse(browser.session.expiresAt) - 12 * 3600_000;
    expect(Date.parse(browser.session.idleExpiresAt) - started).toBe(30 * 60_000);
  });
});

describe("the session's project", () => {
  it("POST /v1/console/session/project switches among the workspace's projects", async () => {
    const second = await call<{ projectId: string }>("POST", "/v1/projects", { key: t.workspaceKey, body: { name: unique("second") } });
    const { browser } = await signedIn(t);
    const res = await browser.post<SessionView>("/v1/console/session/project", { projectId: second.body.data.projectId });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.project?.projectId).toBe(second.body.data.projectId);
    // The first project's job is now another project's: 404 like any foreign id.
    expectError(await browser.get(`/v1/jobs/${jobId}`), 404, "notFound");
  });

  it("another workspace's project is 404", async () => {
    const other = await createTenant({ withConnection: false });
    const { browser } = await signedIn(t);
    expectError(await browser.post("/v1/console/session/project", { projectId: other.projectId }), 404, "notFound");
    expect((await browser.get<SessionView>("/v1/console/session")).body.data.project?.projectId).toBe(t.projectId);
  });

  it("sign-in can name the project to start in", async () => {
    const user = await createUser(t);
    const browser = await signIn(user.email, user.password, { projectId: t.projectId });
    expect(browser.session.project?.projectId).toBe(t.projectId);
  });
});

describe("pages served on loopback", () => {
  it("the loopback cookie authenticates on loopback", async () => {
    const user = await createUser(t);
    const browser = await signIn(user.email, user.password, { site: LOOPBACK_SITE });
    expect((await browser.get("/v1/console/session")).status).toBe(200);
  });
});
