import { and, eq } from "drizzle-orm";
import type { Context, MiddlewareHandler } from "hono";
import type { AppBindings } from "../env";
import { getDb } from "../db/client";
import { apiKeys, workspaces } from "../db/schema";
import { ApiError, forbidden, unauthorized } from "../errors";
import { safeEqual, sha256Hex } from "../platform/crypto";
import { checkCsrf, readSessionCookie, touchSession } from "./session";
import { KEY_PREFIX, looksLikeKey } from "./keys";
import { cachedKey, rememberKey } from "./key-cache";
import { grants, type Permission } from "./permissions";
import type { Principal } from "./principal";
import type { RouteRule } from "./route-access";
import { nowIso } from "../../contracts/clock";

const MISSING = "missing Authorization header; send `Authorization: Bearer <API_KEY>`";

/**
 * Resolves `Authorization: Bearer <key>` into a Principal, or throws 401 in the envelope. Without an
 * Authorization header, the console session cookie is accepted instead (console sessions only); such a
 * request that changes state must also pass the CSRF check (worker/auth/session.ts). Bearer
 * requests are not affected by CSRF: a browser never attaches that header on its own. The guard
 * (worker/auth/guard.ts) calls it for every `/v1` route the access table does not mark public.
 */
export async function resolvePrincipal(c: Context<AppBindings>): Promise<Principal> {
  const header = c.req.header("authorization");
  const cookie = header ? undefined : readSessionCookie(c);
  if (!header && !cookie) throw unauthorized(MISSING);
  let secret: string;
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header.trim());
    if (!m?.[1]) throw unauthorized("malformed Authorization header; expected `Bearer <API_KEY>`");
    secret = m[1];
    if (!looksLikeKey(secret)) throw unauthorized("malformed API key");
  } else {
    secret = cookie ?? "";
    if (!secret.startsWith(KEY_PREFIX.console) || !looksLikeKey(secret)) throw unauthorized("console session is not valid; sign in again");
  }
  const hash = await sha256Hex(secret);
  const db = getDb(c.env.DB);
  const lookup = () =>
    db
      .select({ key: apiKeys, plan: workspaces.plan })
      .from(apiKeys)
      .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
      .where(and(eq(apiKeys.secretHash, hash)))
      .get();
  const timing = c.get("timing");
  // A Bearer key may come from the isolate's short cache (key-cache.ts); console sessions always read D1.
  const cached = header ? cachedKey(hash) : undefined;
  if (cached) timing?.add("auth", 0);
  const row = cached ?? (timing ? await timing.time("auth", lookup) : await lookup());
  // The lookup is by hash; the explicit constant-time check keeps the comparison itself timing-safe.
  if (!row || !safeEqual(row.key.secretHash, hash))
    throw unauthorized(header ? "invalid API key" : "console session is not valid; sign in again");
  if (row.key.revokedAt) throw unauthorized(header ? "API key has been revoked" : "console session has ended; sign in again");
  const now = nowIso();
  if (row.key.expiresAt && row.key.expiresAt < now) throw unauthorized("console session has expired");
  if (row.key.idleExpiresAt && row.key.idleExpiresAt < now) throw unauthorized("console session has expired after a period of inactivity");
  if (!header) await checkCsrf(c, row.key.csrfHash);
  await touchSession(db, row.key);
  if (header && !cached && row.key.kind !== "console") rememberKey(hash, row);
  return {
    keyKind: row.key.kind,
    keyId: row.key.id,
    keyName: row.key.name,
    workspaceId: row.key.workspaceId,
    plan: row.plan,
    projectId: row.key.projectId,
    permissions: row.key.permissions,
    userId: row.key.userId,
    userHandle: row.key.userHandle,
  };
}

/** 403 unless the key holds the permission (directly, by `resource:*`, or by `*`). */
export function requirePermission(p: Principal, permission: Permission): void {
  if (grants(p.permissions, permission)) return;
  throw new ApiError("forbidden", `API key lacks permission ${permission}`, [
    { path: "authorization", issue: `missingPermission:${permission}` },
  ]);
}

/**
 * The route's rule against the caller: the key kind first (a workspace key cannot submit jobs), then
 * the permission. Console sessions act for one project, so they pass where a project key does.
 */
export function authorize(p: Principal, rule: Exclude<RouteRule, { access: "public" }>): void {
  switch (rule.access) {
    case "project":
      if (p.keyKind === "workspace") throw forbidden("this route needs a project API key (sk_prj_…); workspace keys cannot use it");
      requirePermission(p, rule.permission);
      if (rule.also) requirePermission(p, rule.also);
      return;
    case "console":
      if (p.keyKind !== "console") throw forbidden("this route is available to console sessions only");
      if (rule.permission) requirePermission(p, rule.permission);
      return;
    case "workspace":
      if (p.keyKind !== "workspace") throw forbidden("this route needs a workspace API key (sk_wsp_…)");
      return requirePermission(p, rule.permission);
    case "anyKey":
      if (p.keyKind === "workspace" && rule.workspacePermission) requirePermission(p, rule.workspacePermission);
      return;
  }
}

/** The caller the guard authenticated; only routes the access table marks public have none. */
export function principalOf(c: Context<AppBindings>): Principal {
  const p = c.get("auth");
  if (!p) throw unauthorized(MISSING);
  return p;
}

export function projectOf(p: Principal): string {
  if (!p.projectId) throw forbidden("this route needs a project API key (sk_prj_…)");
  return p.projectId;
}

/** Guards operator routes with a shared secret from the Worker's environment (runners have tokens of their own: runner-tokens.ts). */
export function requireSecret(secretName: "ADMIN_SECRET", what: string): MiddlewareHandler<AppBindings> {
  return async (c, next) => {
    const m = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization") ?? "");
    if (!m?.[1] || !safeEqual(m[1], c.env[secretName])) throw unauthorized(`${what} need \`Authorization: Bearer <${secretName}>\``);
    await next();
  };
}
