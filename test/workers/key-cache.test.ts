import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SHORT_CACHE_TTL_MS } from "../../worker/platform/short-cache";
import { sha256Hex } from "../../worker/platform/crypto";
import { call } from "./helpers/api";
import { consoleSession, createTenant } from "./helpers/tenant";

/** A revocation written to D1 by someone else than this isolate (another location, the operator's SQL). */
async function revokeElsewhere(secret: string): Promise<void> {
  await env.DB.prepare("UPDATE api_keys SET revoked_at = ? WHERE secret_hash = ?")
    .bind(new Date().toISOString(), await sha256Hex(secret))
    .run();
}

describe("the isolate's key cache (docs/api.md, Read-your-writes)", () => {
  it("a key revoked outside this isolate passes for at most the cache's TTL, then is refused", async () => {
    const t = await createTenant({ withConnection: false });
    expect((await call("GET", "/v1/jobs", { key: t.projectKey })).status).toBe(200);
    await revokeElsewhere(t.projectKey);
    expect((await call("GET", "/v1/jobs", { key: t.projectKey })).status).toBe(200);
    await new Promise((r) => setTimeout(r, SHORT_CACHE_TTL_MS + 200));
    const after = await call("GET", "/v1/jobs", { key: t.projectKey });
    expect(after.status).toBe(401);
    expect(after.body.error?.message).toBe("API key has been revoked");
  });

  it("a console session is never cached: revoked anywhere, it is refused at once", async () => {
    const t = await createTenant({ withConnection: false });
    const session = await consoleSession(t);
    expect((await call("GET", "/v1/jobs", { key: session.secret })).status).toBe(200);
    await revokeElsewhere(session.secret);
    expect((await call("GET", "/v1/jobs", { key: session.secret })).status).toBe(401);
  });

  it("an unknown secret is not remembered: the key minted for it next works at once", async () => {
    const t = await createTenant({ withConnection: false });
    const wrong = `sk_prj_${"0".repeat(32)}`;
    expect((await call("GET", "/v1/jobs", { key: wrong })).status).toBe(401);
    expect((await call("GET", "/v1/jobs", { key: t.projectKey })).status).toBe(200);
  });
});
