import { eq } from "drizzle-orm";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { newId } from "../../contracts/ids";
import { mintSecret } from "./keys";
import { DEFAULT_PROJECT_GRANT } from "./permissions";
import type { Db } from "../db/client";
import { apiKeys, type users } from "../db/schema";
import { forbidden } from "../errors";
import { b64encode, hmacSha256, safeEqual, sha256Hex } from "../platform/crypto";

/**
 * Console cookie sessions. A session is an api_keys row of kind `console` (so `authenticate`, the
 * principal and the console-only routes treat it like the dashboard's pseudo-keys); the cookie carries
 * its `sk_con_` secret. It ends SESSION_ABSOLUTE_MS after sign-in, or SESSION_IDLE_MS after its last use.
 */
export const SESSION_ABSOLUTE_MS = 12 * 60 * 60 * 1000;
export const SESSION_IDLE_MS = 30 * 60 * 1000;
/** Use pushes the idle end on at most once a minute, so polling pages do not write D1 on every call. */
export const IDLE_REFRESH_MS = 60 * 1000;

export const CSRF_HEADER = "X-CSRF-Token";
const SECURE_COOKIE = "__Host-media_jobs_console";
const LOOPBACK_COOKIE = "media_jobs_console";
const UNSAFE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** Hosts where the cookie goes without `Secure`: browsers do not send Secure cookies over plain-http loopback everywhere. */
export function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/** Off loopback the cookie is `__Host-` prefixed: Secure, Path=/, no Domain, so no sibling host can plant or widen it. */
function cookieName(c: Context): string {
  return isLoopback(c.req.url) ? LOOPBACK_COOKIE : SECURE_COOKIE;
}

export function readSessionCookie(c: Context): string | undefined {
  return getCookie(c, cookieName(c)) || undefined;
}

/** The session secret this request authenticated with: the Bearer token, else the cookie (as `authenticate` reads them). */
export function presentedSecret(c: Context): string | undefined {
  const header = c.req.header("authorization");
  if (header) return /^Bearer\s+(\S+)$/i.exec(header.trim())?.[1];
  return readSessionCookie(c);
}

export function setSessionCookie(c: Context, secret: string, maxAgeMs: number): void {
  const secure = !isLoopback(c.req.url);
  setCookie(c, cookieName(c), secret, {
    httpOnly: true,
    secure,
    sameSite: "Lax",
    path: "/",
    maxAge: Math.floor(maxAgeMs / 1000),
  });
}

export function clearSessionCookie(c: Context): void {
  deleteCookie(c, cookieName(c), { httpOnly: true, secure: !isLoopback(c.req.url), sameSite: "Lax", path: "/" });
}

/**
 * The session's CSRF token: an HMAC of its secret, so `GET …/session` can hand it out again without
 * storing it in the clear, and it reveals nothing about the secret. The row keeps its SHA-256 to check against.
 */
export async function csrfTokenFor(secret: string): Promise<string> {
  const mac = await hmacSha256(secret, "media-jobs console csrf v1");
  return b64encode(mac).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export const isStateChanging = (method: string) => UNSAFE_METHODS.has(method.toUpperCase());

/**
 * A browser names the page that sent a request in `Origin` (and `Sec-Fetch-Site`): a request from
 * another origin is refused. Clients that send neither (curl with a cookie jar) still need the CSRF token.
 */
export function checkSameOrigin(c: Context): void {
  const origin = c.req.header("origin");
  const expected = new URL(c.req.url).origin;
  if (origin !== undefined && origin !== expected) {
    throw forbidden(`cross-origin request refused: Origin ${origin} is not ${expected}`);
  }
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin" && site !== "none") {
    throw forbidden(`cross-origin request refused: Sec-Fetch-Site is ${site}`);
  }
}

/** State-changing requests authenticated by the cookie: same origin, and the session's token in X-CSRF-Token. */
export async function checkCsrf(c: Context, csrfHash: string | null): Promise<void> {
  if (!isStateChanging(c.req.method)) return;
  checkSameOrigin(c);
  const sent = c.req.header(CSRF_HEADER);
  if (!sent) throw forbidden(`missing ${CSRF_HEADER} header: a console request that changes state must send the session's CSRF token`);
  if (!csrfHash || !safeEqual(await sha256Hex(sent), csrfHash)) {
    throw forbidden(`wrong ${CSRF_HEADER}: send the CSRF token from sign-in or GET /v1/console/session`);
  }
}

/** Pushes the idle end on when the session is used, at most once per IDLE_REFRESH_MS, never past the absolute end. */
export async function touchSession(db: Db, row: typeof apiKeys.$inferSelect, now = Date.now()): Promise<void> {
  if (!row.idleExpiresAt) return;
  const absolute = row.expiresAt ? Date.parse(row.expiresAt) : Infinity;
  const next = Math.min(now + SESSION_IDLE_MS, absolute);
  if (next - Date.parse(row.idleExpiresAt) < IDLE_REFRESH_MS) return;
  await db
    .update(apiKeys)
    .set({ idleExpiresAt: new Date(next).toISOString() })
    .where(eq(apiKeys.id, row.id));
}

/** A new session row for a signed-in user, acting for `projectId`; its secret goes in the cookie only. */
export async function startSession(db: Db, user: typeof users.$inferSelect, projectId: string | null, now = Date.now()) {
  const minted = await mintSecret("console");
  const csrfToken = await csrfTokenFor(minted.secret);
  const row = {
    id: newId("consoleSession"),
    workspaceId: user.workspaceId,
    projectId,
    kind: "console" as const,
    name: `Console (${user.email})`,
    prefix: minted.prefix,
    secretHash: minted.hash,
    permissions: [...DEFAULT_PROJECT_GRANT],
    userId: user.id,
    userHandle: user.email,
    expiresAt: new Date(now + SESSION_ABSOLUTE_MS).toISOString(),
    idleExpiresAt: new Date(now + SESSION_IDLE_MS).toISOString(),
    csrfHash: await sha256Hex(csrfToken),
    createdAt: new Date(now).toISOString(),
    revokedAt: null,
  };
  await db.insert(apiKeys).values(row);
  return { secret: minted.secret, csrfToken, row };
}
