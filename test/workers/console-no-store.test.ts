import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { admin, call, type ApiResponse } from "./helpers/api";
import { createUser, PASSWORD, send, signedIn, signIn, SITE, type Browser } from "./helpers/console";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Answers that carry a secret (a key, a webhook signing secret, a session cookie, a CSRF token, an
 * invitation token) say `Cache-Control: no-store` (review finding L14): no browser or proxy cache keeps
 * them, e.g. on a shared machine after sign-out.
 */

let t: Tenant;
let adminBrowser: Browser;

beforeAll(async () => {
  t = await createTenant();
  adminBrowser = (await signedIn(t, "admin")).browser;
});

const expectNoStore = (res: ApiResponse<unknown>) => {
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  expect(res.headers.get("cache-control")).toBe("no-store");
};

describe("workspace-key and operator answers with a secret", () => {
  it("project create (its webhook signing secret)", async () => {
    expectNoStore(await call("POST", "/v1/projects", { key: t.workspaceKey, body: { name: unique("proj") } }));
  });

  it("webhook-secret rotation", async () => {
    expectNoStore(await call("POST", `/v1/projects/${t.projectId}/webhook-secret`, { key: t.workspaceKey }));
  });

  it("project API key create", async () => {
    expectNoStore(await call("POST", `/v1/projects/${t.projectId}/api-keys`, { key: t.workspaceKey, body: { name: unique("key") } }));
  });

  it("console session create (POST /v1/console/sessions)", async () => {
    expectNoStore(await call("POST", "/v1/console/sessions", { key: t.workspaceKey, body: { projectId: t.projectId, userHandle: "ops" } }));
  });

  it("workspace key create (the operator's route)", async () => {
    expectNoStore(await admin("POST", `/workspaces/${t.workspaceId}/keys`, { name: unique("wkey") }));
  });
});

describe("console answers with a session, a CSRF token or an invitation token", () => {
  it("sign-in (the session cookie and the CSRF token)", async () => {
    const user = await createUser(t);
    expectNoStore(await send("POST", "/v1/console/sign-in", { body: { email: user.email, password: user.password } }));
  });

  it("the session view and a project switch (the CSRF token)", async () => {
    expectNoStore(await adminBrowser.get("/v1/console/session"));
    expectNoStore(await adminBrowser.post("/v1/console/session/project", { projectId: t.projectId }));
  });

  it("invitation create (the token) and accept", async () => {
    const inv = await adminBrowser.post<{ token: string }>("/v1/console/invitations", { email: `${unique("inv")}@example.com` });
    expectNoStore(inv);
    expectNoStore(
      await send("POST", "/v1/console/invitations/accept", { body: { token: inv.body.data.token, name: "I", password: PASSWORD } }),
    );
  });

  it("a refused sign-in too: the answer is about a credential", async () => {
    const res = await send("POST", "/v1/console/sign-in", { body: { email: `${unique("x")}@example.com`, password: "wrong password" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("the console's key page that shows a new key's secret", async () => {
    const user = await createUser(t, { role: "admin" });
    const browser = await signIn(user.email, user.password);
    const res = await exports.default.fetch(
      new Request(`${SITE}/console/keys`, {
        method: "POST",
        headers: { cookie: browser.cookie, origin: SITE, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ _csrf: browser.csrfToken, name: unique("key") }).toString(),
      }),
    );
    expect(res.status).toBe(201);
    expect(await res.text()).toContain('id="new-secret"');
    expect(res.headers.get("cache-control")).toBe("no-store");
  });
});
