import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { ApiResponse } from "./helpers/api";
import { expectError } from "./helpers/api";
import { cookiePair, createUser, SITE, send, type ConsoleUser } from "./helpers/console";
import { createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * Sign-in throttling (review finding M5): growing waits by client address, by address and email, and
 * (short, capped, skipped by the owner's own browser) by email; a known and an unknown email are
 * throttled and answered alike; an unknown email adds no row of its own.
 */

let t: Tenant;

beforeAll(async () => {
  t = await createTenant();
});

let addresses = 0;
/** A client address no other test uses (198.18.0.0/15 is for benchmarks, never a real client). */
const freshAddress = () => `198.18.${(++addresses >> 8) & 255}.${addresses & 255}`;
const nobody = () => `${unique("nobody")}@example.com`;

interface Attempt {
  address: string;
  /** A device cookie (`name=value`) the browser sends. */
  device?: string;
}

function signInFrom(email: string, password: string, from: Attempt): Promise<ApiResponse> {
  return send("POST", "/v1/console/sign-in", {
    body: { email, password },
    headers: { "cf-connecting-ip": from.address, ...(from.device ? { cookie: from.device } : {}) },
  });
}

/** `count` wrong passwords for `email` from `from`, each expected to be checked and refused with 401. */
async function fail(email: string, count: number, from: Attempt) {
  for (let i = 0; i < count; i++) {
    const res = await signInFrom(email, `wrong password ${i}`, from);
    expect(res.status, `failure ${i + 1}: ${JSON.stringify(res.body)}`).toBe(401);
  }
}

/** Ends every running wait (as if the clock had passed them), leaving the counts and windows as they are. */
const endWaits = () => env.DB.prepare("UPDATE rate_limits SET blocked_until = 0").run();

const retryAfter = (res: ApiResponse) => Number(res.headers.get("retry-after"));

function expectThrottled(res: ApiResponse) {
  expectError(res, 429, "rateLimited");
  expect(retryAfter(res)).toBeGreaterThanOrEqual(1);
  expect(res.body.error?.message).toBe(`too many attempts; try again in ${retryAfter(res)} s`);
}

const rows = (like: string) =>
  env.DB.prepare("SELECT key, attempts FROM rate_limits WHERE key LIKE ? ORDER BY key")
    .bind(like)
    .all<{ key: string; attempts: number }>()
    .then((r) => r.results);

describe("by client address", () => {
  it("after 20 failures from one address, the next attempt waits, even with another account's right password", async () => {
    const user = await createUser(t);
    const address = freshAddress();
    for (let i = 0; i < 20; i++) await fail(nobody(), 1, { address });
    expectThrottled(await signInFrom(user.email, user.password, { address }));
    expect((await signInFrom(user.email, user.password, { address: freshAddress() })).status).toBe(200);
  });

  it("each attempt past the free ones doubles the wait, up to 15 minutes", async () => {
    const address = freshAddress();
    for (let i = 0; i < 20; i++) await fail(nobody(), 1, { address });
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      waits.push(retryAfter(await signInFrom(nobody(), "x", { address })));
      await endWaits();
      await fail(nobody(), 1, { address });
    }
    expect(waits).toEqual([1, 2, 4, 8]);
    await env.DB.prepare("UPDATE rate_limits SET attempts = 500, blocked_until = 0 WHERE key = ?").bind(`sign-in:a:${address}`).run();
    await fail(nobody(), 1, { address });
    expect(retryAfter(await signInFrom(nobody(), "x", { address }))).toBe(15 * 60);
  });

  it("a refused attempt is not checked and does not lengthen the wait", async () => {
    const user = await createUser(t);
    const address = freshAddress();
    for (let i = 0; i < 20; i++) await fail(nobody(), 1, { address });
    const before = await rows(`sign-in:a:${address}`);
    const first = await signInFrom(user.email, user.password, { address });
    const again = await signInFrom(user.email, user.password, { address });
    expectThrottled(first);
    expect(retryAfter(again)).toBeLessThanOrEqual(retryAfter(first));
    expect(await rows(`sign-in:a:${address}`)).toEqual(before);
  });

  it("a successful sign-in from the address clears its counters", async () => {
    const user = await createUser(t);
    const address = freshAddress();
    for (let i = 0; i < 19; i++) await fail(nobody(), 1, { address });
    expect((await signInFrom(user.email, user.password, { address })).status).toBe(200);
    for (let i = 0; i < 19; i++) await fail(nobody(), 1, { address });
    expect((await signInFrom(user.email, user.password, { address })).status).toBe(200);
  });

  it("an IPv6 client is one address for its whole /64", async () => {
    const user = await createUser(t);
    const net = `2001:db8:${(++addresses).toString(16)}:1`;
    for (let i = 0; i < 20; i++) await fail(nobody(), 1, { address: `${net}::${(i + 1).toString(16)}` });
    expectThrottled(await signInFrom(user.email, user.password, { address: `${net}:ffff:ffff:ffff:ffff` }));
  });

  it("concurrent attempts from one address cannot slip past the wait: at most the 20 free ones are checked", async () => {
    const address = freshAddress();
    const results = await Promise.all(Array.from({ length: 30 }, () => signInFrom(nobody(), "wrong password", { address })));
    expect(results.filter((r) => r.status === 401)).toHaveLength(20);
    expect(results.filter((r) => r.status === 429)).toHaveLength(10);
  });
});

describe("by address and email", () => {
  it("after 5 failures for one email from one address, that pair waits; the address may try other emails", async () => {
    const [user, other] = [await createUser(t), await createUser(t)];
    const address = freshAddress();
    await fail(user.email, 5, { address });
    expectThrottled(await signInFrom(user.email, user.password, { address }));
    expect((await signInFrom(other.email, other.password, { address })).status).toBe(200);
    expect((await signInFrom(user.email, user.password, { address: freshAddress() })).status).toBe(200);
  });

  it("the pair's wait grows to an hour at most", async () => {
    const email = nobody();
    const address = freshAddress();
    await fail(email, 5, { address });
    await env.DB.prepare("UPDATE rate_limits SET attempts = 500, blocked_until = 0 WHERE key LIKE ?").bind(`sign-in:ae:${address}|%`).run();
    await fail(email, 1, { address });
    expect(retryAfter(await signInFrom(email, "x", { address }))).toBe(3600);
  });
});

describe("by email, from many addresses", () => {
  /** Ten failures for the email, each from an address of its own (a crowd no address limit sees). */
  async function crowd(email: string) {
    for (let i = 0; i < 10; i++) await fail(email, 1, { address: freshAddress() });
  }

  /** Signs the user in once from their own browser; returns its device cookie. */
  async function ownersBrowser(user: ConsoleUser): Promise<string> {
    const res = await signInFrom(user.email, user.password, { address: freshAddress() });
    expect(res.status).toBe(200);
    const device = res.headers.getSetCookie().find((c) => c.startsWith("__Host-media_jobs_device="));
    expect(device).toMatch(/; HttpOnly/);
    expect(device).toMatch(/; SameSite=Strict/);
    return cookiePair(device ?? null);
  }

  it("ten failures for one email from ten addresses make the next attempt, from anywhere, wait a little", async () => {
    const user = await createUser(t);
    await crowd(user.email);
    const res = await signInFrom(user.email, user.password, { address: freshAddress() });
    expectThrottled(res);
    expect(retryAfter(res)).toBeLessThanOrEqual(30);
  });

  it("the email's wait never passes 30 s, however many addresses keep failing", async () => {
    const user = await createUser(t);
    await crowd(user.email);
    for (let i = 0; i < 10; i++) {
      await endWaits();
      await fail(user.email, 1, { address: freshAddress() });
    }
    const res = await signInFrom(user.email, user.password, { address: freshAddress() });
    expectThrottled(res);
    expect(retryAfter(res)).toBe(30);
    await endWaits();
    expect((await signInFrom(user.email, user.password, { address: freshAddress() })).status).toBe(200);
  });

  it("the owner's browser, which has signed in before, is not held back by the email's wait", async () => {
    const user = await createUser(t);
    const device = await ownersBrowser(user);
    await crowd(user.email);
    expectThrottled(await signInFrom(user.email, user.password, { address: freshAddress() }));
    expect((await signInFrom(user.email, user.password, { address: freshAddress(), device })).status).toBe(200);
  });

  it("a device cookie of another account, or a forged one, does not skip the email's wait", async () => {
    const [user, other] = [await createUser(t), await createUser(t)];
    const othersDevice = await ownersBrowser(other);
    await crowd(user.email);
    const [, value = ""] = othersDevice.split("=");
    const [version, tag, expires] = value.split(".");
    for (const device of [othersDevice, `__Host-media_jobs_device=${version}.${tag}.${Number(expires) + 1}.AAAA`]) {
      expectThrottled(await signInFrom(user.email, user.password, { address: freshAddress(), device }));
    }
  });
});

describe("known and unknown emails", () => {
  it("an unknown email is throttled and answered exactly like a known one", async () => {
    const user = await createUser(t);
    const [a, b] = [freshAddress(), freshAddress()];
    await fail(user.email, 5, { address: a });
    const unknown = nobody();
    await fail(unknown, 5, { address: b });
    const known = await signInFrom(user.email, "wrong again", { address: a });
    const made = await signInFrom(unknown, "wrong again", { address: b });
    expectThrottled(known);
    expect(made.status).toBe(known.status);
    expect(made.body).toEqual(known.body);
    expect(retryAfter(made)).toBe(retryAfter(known));
  });

  it("an unknown email adds no row of its own: only its address's rows and a counter in a shared bucket", async () => {
    const address = freshAddress();
    const email = nobody();
    await fail(email, 1, { address });
    const hash = [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(email)))]
      .map((b) => b.toString(16).padStart(2, "0"))
      .join("");
    const keys = (await rows(`%`)).map((r) => r.key).filter((k) => k.includes(address) || k === `sign-in:e:${hash.slice(0, 4)}`);
    expect(keys.sort()).toEqual([`sign-in:a:${address}`, `sign-in:ae:${address}|${hash.slice(0, 16)}`, `sign-in:e:${hash.slice(0, 4)}`]);
    const all = (await rows("%")).map((r) => r.key);
    expect(all.some((k) => k.includes(email) || k.includes(hash))).toBe(false);
  });
});

describe("the table stays small", () => {
  it("rows past their window and their wait are pruned at the next attempt", async () => {
    const stale = `sign-in:a:${freshAddress()}`;
    await env.DB.prepare(
      `INSERT INTO rate_limits (key, attempts, blocked_until, last_attempt_at, expires_at, free_attempts, base_delay_ms, max_delay_ms, window_ms)
       VALUES (?, 3, 0, 0, ?, 20, 1000, 900000, 86400000)`,
    )
      .bind(stale, Date.now() - 1000)
      .run();
    await fail(nobody(), 1, { address: freshAddress() });
    expect(await rows(stale)).toEqual([]);
  });
});

describe("the console's sign-in form", () => {
  const form = (email: string, password: string, address: string) =>
    exports.default.fetch(
      new Request(`${SITE}/console/sign-in`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", origin: SITE, "cf-connecting-ip": address },
        body: new URLSearchParams({ email, password }).toString(),
      }),
    );

  it("a throttled form shows the wait and sends Retry-After", async () => {
    const user = await createUser(t);
    const address = freshAddress();
    for (let i = 0; i < 5; i++) expect((await form(user.email, `wrong ${i}`, address)).status).toBe(401);
    const res = await form(user.email, user.password, address);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await res.text()).toMatch(/too many attempts; try again in \d+ s/);
  });

  it("the form is counted against the browser's address, not the Worker's own", async () => {
    const user = await createUser(t);
    for (let i = 0; i < 5; i++) await form(user.email, `wrong ${i}`, freshAddress());
    const res = await form(user.email, user.password, freshAddress());
    expect(res.status).toBe(303);
    await res.body?.cancel();
  });
});
