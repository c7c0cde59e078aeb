import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, expectError } from "./helpers/api";
import { createUser, PASSWORD, send, signedIn, signIn, type Browser } from "./helpers/console";
import { submitTranscription } from "./helpers/jobs";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/** Console users: the operator's create route, password hashing, invitations, admin rights and workspace isolation. */

let t: Tenant;
let other: Tenant;

beforeAll(async () => {
  [t, other] = await Promise.all([createTenant(), createTenant()]);
});

const passwordHashOf = async (userId: string) =>
  (await env.DB.prepare("SELECT password_hash FROM users WHERE id = ?").bind(userId).first<{ password_hash: string }>())?.password_hash ??
  "";

interface Invitation {
  invitationId: string;
  email: string;
  role: string;
  token: string;
  expiresAt: string;
}

async function invite(browser: Browser, role: "admin" | "member" = "member") {
  const res = await browser.post<Invitation>("/v1/console/invitations", { email: `${unique("invitee")}@example.com`, role });
  if (res.status !== 201) throw new Error(`invite failed: ${JSON.stringify(res.body)}`);
  return res.body.data;
}

const accept = (token: string, password = PASSWORD) =>
  send<{ userId: string; email: string; role: string }>("POST", "/v1/console/invitations/accept", {
    body: { token, name: "Invitee", password },
  });

describe("POST /admin/v1/workspaces/{workspaceId}/users (the admin CLI's `users create`)", () => {
  it("creates a user who can then sign in", async () => {
    const email = `${unique("ops")}@Example.com`;
    const res = await admin<{ userId: string; email: string; role: string; workspaceId: string }>(
      "POST",
      `/workspaces/${t.workspaceId}/users`,
      {
        email,
        role: "admin",
        password: PASSWORD,
      },
    );
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      userId: expect.stringMatching(/^usr_/),
      email: email.toLowerCase(),
      role: "admin",
      workspaceId: t.workspaceId,
    });
    expect(res.body.data).not.toHaveProperty("passwordHash");
    const browser = await signIn(email, PASSWORD);
    expect(browser.session.user.userId).toBe(res.body.data.userId);
  });

  it("an email already used (in any case, in any workspace) is 409", async () => {
    const user = await createUser(t);
    const res = await admin("POST", `/workspaces/${other.workspaceId}/users`, { email: user.email.toUpperCase(), password: PASSWORD });
    expectError(res, 409, "conflict");
  });

  it.each([
    { rule: "shorter than 12 characters", password: "only eleven", issue: "tooSmall" },
    { rule: "longer than 256 characters", password: "x".repeat(257), issue: "tooBig" },
  ])("a password $rule is 422", async ({ password, issue }) => {
    const res = await admin("POST", `/workspaces/${t.workspaceId}/users`, { email: `${unique("short")}@example.com`, password });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "password", issue }]);
  });

  it("an unknown workspace is 404", async () => {
    expectError(
      await admin("POST", "/workspaces/wsp_nope/users", { email: `${unique("x")}@example.com`, password: PASSWORD }),
      404,
      "notFound",
    );
  });
});

describe("password storage", () => {
  it("is PBKDF2-SHA-256 at 100,000 iterations with a 16-byte salt, in a self-describing string", async () => {
    const user = await createUser(t);
    const stored = await passwordHashOf(user.userId);
    expect(stored).toMatch(/^pbkdf2-sha256\$100000\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(stored).not.toContain(PASSWORD);
  });

  it("two users with the same password get different salts and hashes", async () => {
    const [a, b] = await Promise.all([createUser(t), createUser(t)]);
    const [ha, hb] = await Promise.all([passwordHashOf(a.userId), passwordHashOf(b.userId)]);
    expect(ha.split("$")[2]).not.toBe(hb.split("$")[2]);
    expect(ha.split("$")[3]).not.toBe(hb.split("$")[3]);
  });
});

describe("invitations", () => {
  let adminBrowser: Browser;
  beforeAll(async () => {
    adminBrowser = (await signedIn(t, "admin")).browser;
  });

  it("an admin's invitation, once accepted, sets a password that signs in, with the invited role", async () => {
    const inv = await invite(adminBrowser, "admin");
    expect(inv).toMatchObject({ invitationId: expect.stringMatching(/^inv_/), role: "admin", token: expect.any(String) });
    const accepted = await accept(inv.token);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(accepted.body.data).toMatchObject({ email: inv.email, role: "admin" });
    const browser = await signIn(inv.email, PASSWORD);
    expect(browser.session.workspace.workspaceId).toBe(t.workspaceId);
  });

  it("the token is stored only as a hash", async () => {
    const inv = await invite(adminBrowser);
    const row = await env.DB.prepare("SELECT token_hash FROM user_invitations WHERE id = ?")
      .bind(inv.invitationId)
      .first<{ token_hash: string }>();
    expect(row?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.token_hash).not.toBe(inv.token);
  });

  it("a used token fails", async () => {
    const inv = await invite(adminBrowser);
    expect((await accept(inv.token)).status).toBe(201);
    expectError(await accept(inv.token, "another long password"), 404, "notFound");
  });

  it("an expired token fails", async () => {
    const inv = await invite(adminBrowser);
    await env.DB.prepare("UPDATE user_invitations SET expires_at = ? WHERE id = ?")
      .bind(new Date(Date.now() - 1000).toISOString(), inv.invitationId)
      .run();
    expectError(await accept(inv.token), 404, "notFound");
  });

  it("accepting with a password under 12 characters is 422 and leaves the invitation usable", async () => {
    const inv = await invite(adminBrowser);
    expectError(await accept(inv.token, "too short"), 422, "validationError");
    expect((await accept(inv.token)).status).toBe(201);
  });

  it("a member cannot invite (403)", async () => {
    const { browser } = await signedIn(t, "member");
    expectError(await browser.post("/v1/console/invitations", { email: `${unique("x")}@example.com` }), 403, "forbidden");
  });

  it("inviting an email with an account in another workspace is answered as for a new email (no enumeration)", async () => {
    const elsewhere = await createUser(other);
    const taken = await adminBrowser.post<Invitation>("/v1/console/invitations", { email: elsewhere.email });
    const fresh = await adminBrowser.post<Invitation>("/v1/console/invitations", { email: `${unique("new")}@example.com` });
    expect(taken.status).toBe(201);
    expect(taken.status).toBe(fresh.status);
    expect(Object.keys(taken.body.data).sort()).toEqual(Object.keys(fresh.body.data).sort());
    expect(taken.body.metadata).toEqual(fresh.body.metadata);
  });

  it("inviting a user of the admin's own workspace is 409: the admin can list them anyway", async () => {
    const mine = await createUser(t);
    expectError(await adminBrowser.post("/v1/console/invitations", { email: mine.email }), 409, "conflict");
  });

  it("accepting for an email that has an account elsewhere is 409 accountExists, makes no account and leaves the invitation unused", async () => {
    const elsewhere = await createUser(other);
    const inv = (await adminBrowser.post<Invitation>("/v1/console/invitations", { email: elsewhere.email })).body.data;
    const res = await accept(inv.token);
    expectError(res, 409, "conflict");
    expect(res.body.error?.details).toEqual([{ path: "token", issue: "accountExists" }]);
    const row = await env.DB.prepare("SELECT accepted_at FROM user_invitations WHERE id = ?")
      .bind(inv.invitationId)
      .first<{ accepted_at: string | null }>();
    expect(row?.accepted_at).toBeNull();
    const users = await env.DB.prepare("SELECT workspace_id FROM users WHERE email = ?")
      .bind(elsewhere.email)
      .all<{ workspace_id: string }>();
    expect(users.results).toEqual([{ workspace_id: other.workspaceId }]);
    // The account's owner still signs in to the account they have, with their own password.
    expect((await signIn(elsewhere.email, elsewhere.password)).session.workspace.workspaceId).toBe(other.workspaceId);
  });
});

describe("disabling a user revokes the invitations they sent", () => {
  it("an open invitation from a disabled admin no longer works; one already accepted stays accepted", async () => {
    const { browser: owner } = await signedIn(t, "admin");
    const { user: inviter, browser: inviterBrowser } = await signedIn(t, "admin");
    const [open, used] = [await invite(inviterBrowser), await invite(inviterBrowser)];
    expect((await accept(used.token)).status).toBe(201);
    expect((await owner.post(`/v1/console/users/${inviter.userId}/disable`)).status).toBe(200);
    const res = await accept(open.token);
    expectError(res, 404, "notFound");
    expect(res.body.error?.message).toMatch(/revoked/);
    const rows = await env.DB.prepare("SELECT id, accepted_at, revoked_at FROM user_invitations WHERE id IN (?, ?)")
      .bind(open.invitationId, used.invitationId)
      .all<{ id: string; accepted_at: string | null; revoked_at: string | null }>();
    const byId = new Map(rows.results.map((r) => [r.id, r]));
    expect(byId.get(open.invitationId)?.revoked_at).toEqual(expect.any(String));
    expect(byId.get(used.invitationId)).toMatchObject({ accepted_at: expect.any(String), revoked_at: null });
  });

  it("another admin's invitations are untouched", async () => {
    const { browser: owner } = await signedIn(t, "admin");
    const { user: inviter } = await signedIn(t, "admin");
    const mine = await invite(owner);
    await owner.post(`/v1/console/users/${inviter.userId}/disable`);
    expect((await accept(mine.token)).status).toBe(201);
  });
});

describe("changing a password (POST /v1/console/password)", () => {
  const NEW_PASSWORD = "a brand new long password";
  const change = (b: Browser, currentPassword: string, newPassword = NEW_PASSWORD) =>
    b.post<{ passwordChanged: boolean; otherSessionsEnded: number }>("/v1/console/password", { currentPassword, newPassword });

  it("with the current password: the new one signs in, the old one no longer does", async () => {
    const { user, browser } = await signedIn(t);
    const res = await change(browser, user.password);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.passwordChanged).toBe(true);
    expect((await send("POST", "/v1/console/sign-in", { body: { email: user.email, password: user.password } })).status).toBe(401);
    expect((await signIn(user.email, NEW_PASSWORD)).session.user.userId).toBe(user.userId);
  });

  it("ends every other session of the user at once and keeps the one that changed it", async () => {
    const { user, browser } = await signedIn(t);
    const [second, third] = [await signIn(user.email, user.password), await signIn(user.email, user.password)];
    const bystander = (await signedIn(t)).browser;
    const res = await change(browser, user.password);
    expect(res.body.data.otherSessionsEnded).toBe(2);
    expectError(await second.get("/v1/console/session"), 401, "unauthorized");
    expectError(await third.get("/v1/console/session"), 401, "unauthorized");
    expect((await browser.get("/v1/console/session")).status).toBe(200);
    expect((await bystander.get("/v1/console/session")).status).toBe(200);
  });

  it("a wrong current password is 403 and changes nothing", async () => {
    const { user, browser } = await signedIn(t);
    const before = await passwordHashOf(user.userId);
    const res = await change(browser, "not my password at all");
    expectError(res, 403, "forbidden");
    expect(res.body.error?.details).toEqual([{ path: "currentPassword", issue: "wrong" }]);
    expect(await passwordHashOf(user.userId)).toBe(before);
  });

  it("guesses of the current password are throttled like sign-in attempts", async () => {
    const { user, browser } = await signedIn(t);
    for (let i = 0; i < 5; i++) expectError(await change(browser, `guess number ${i}`), 403, "forbidden");
    const res = await change(browser, user.password);
    expectError(res, 429, "rateLimited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  });

  it("the new password follows the password rules (422)", async () => {
    const { user, browser } = await signedIn(t);
    expectError(await change(browser, user.password, "short"), 422, "validationError");
  });

  it("needs the session's CSRF token", async () => {
    const { user, browser } = await signedIn(t);
    expectError(
      await browser.request("POST", "/v1/console/password", {
        body: { currentPassword: user.password, newPassword: NEW_PASSWORD },
        csrf: null,
      }),
      403,
      "forbidden",
    );
  });

  it("a dashboard pseudo-key session has no password to change (403)", async () => {
    const session = await call<{ secret: string }>("POST", "/v1/console/sessions", {
      key: t.workspaceKey,
      body: { projectId: t.projectId, userHandle: "ana" },
    });
    const res = await call("POST", "/v1/console/password", {
      key: session.body.data.secret,
      body: { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
    });
    expectError(res, 403, "forbidden");
  });
});

describe("managing users", () => {
  let adminBrowser: Browser;
  beforeAll(async () => {
    adminBrowser = (await signedIn(t, "admin")).browser;
  });

  it("an admin lists the users of their own workspace only", async () => {
    const mine = await createUser(t);
    const theirs = await createUser(other);
    const res = await adminBrowser.get<Array<{ userId: string; workspaceId: string }>>("/v1/console/users");
    expect(res.status).toBe(200);
    const ids = res.body.data.map((u) => u.userId);
    expect(ids).toContain(mine.userId);
    expect(ids).not.toContain(theirs.userId);
    expect(new Set(res.body.data.map((u) => u.workspaceId))).toEqual(new Set([t.workspaceId]));
  });

  it("a member cannot list users (403)", async () => {
    const { browser } = await signedIn(t, "member");
    expectError(await browser.get("/v1/console/users"), 403, "forbidden");
  });

  it("disabling a user ends their sessions at once and refuses their sign-in", async () => {
    const { user, browser } = await signedIn(t, "member");
    const res = await adminBrowser.post<{ disabledAt: string | null }>(`/v1/console/users/${user.userId}/disable`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.disabledAt).toEqual(expect.any(String));
    expectError(await browser.get("/v1/console/session"), 401, "unauthorized");
    expectError(await send("POST", "/v1/console/sign-in", { body: { email: user.email, password: user.password } }), 401, "unauthorized");
  });

  it("a user of another workspace cannot be disabled (404, as if unknown)", async () => {
    const theirs = await createUser(other);
    expectError(await adminBrowser.post(`/v1/console/users/${theirs.userId}/disable`), 404, "notFound");
  });

  it("an admin cannot disable themselves (409)", async () => {
    expectError(await adminBrowser.post(`/v1/console/users/${adminBrowser.session.user.userId}/disable`), 409, "conflict");
  });
});

describe("a console user sees only their workspace", () => {
  let browser: Browser;
  let otherJobId: string;
  beforeAll(async () => {
    browser = (await signedIn(t, "admin")).browser;
    otherJobId = (await submitTranscription(other)).jobId;
  });

  it("GET /v1/console/projects lists their workspace's projects only", async () => {
    const res = await browser.get<Array<{ projectId: string }>>("/v1/console/projects");
    const ids = res.body.data.map((p) => p.projectId);
    expect(ids).toContain(t.projectId);
    expect(ids).not.toContain(other.projectId);
  });

  it("the workspace project routes stay closed to a console session (403)", async () => {
    expectError(await browser.get(`/v1/projects/${other.projectId}`), 403, "forbidden");
  });

  it.each(["", "/progress", "/webhook-deliveries"])("another workspace's job%s is 404", async (suffix) => {
    expectError(await browser.get(`/v1/jobs/${otherJobId}${suffix}`), 404, "notFound");
  });

  it("another workspace's jobs are never listed", async () => {
    const res = await browser.get<Array<{ jobId: string }>>("/v1/jobs?limit=100");
    expect(res.status).toBe(200);
    expect(res.body.data.map((j) => j.jobId)).not.toContain(otherJobId);
  });

  it("a session minted by a workspace key is labelled with that key, so its free-form handle cannot pass as a person", async () => {
    const session = await call<{ secret: string; userHandle: string }>("POST", "/v1/console/sessions", {
      key: t.workspaceKey,
      body: { projectId: t.projectId, userHandle: "ada@example.com" },
    });
    expect(session.body.data.userHandle).toBe("ada@example.com (workspace key ops)");
    const job = await submitTranscription(t);
    const cancel = await call<{ cancelRequestedByLabel: string; cancelRequestedByKind: string }>("POST", `/v1/jobs/${job.jobId}/cancel`, {
      key: session.body.data.secret,
    });
    expect(cancel.body.data).toMatchObject({
      cancelRequestedByKind: "console",
      cancelRequestedByLabel: "ada@example.com (workspace key ops)",
    });
  });

  it("a dashboard pseudo-key session (POST /v1/console/sessions) is not a user: the user routes are 403 for it", async () => {
    const session = await call<{ secret: string }>("POST", "/v1/console/sessions", {
      key: t.workspaceKey,
      body: { projectId: t.projectId, userHandle: "ana" },
    });
    expectError(await call("GET", "/v1/console/users", { key: session.body.data.secret }), 403, "forbidden");
  });
});
