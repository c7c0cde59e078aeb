import { desc, eq, inArray } from "drizzle-orm";
import type { MiddlewareHandler } from "hono";
import { z } from "zod";
import { newId, randomToken } from "../../contracts/ids";
import { Id } from "../../contracts/request-fields";
import { PrioritySchema } from "../../contracts/service-types";
import type { Db } from "../db/client";
import { getDb } from "../db/client";
import { runnerTokens, workspaces } from "../db/schema";
import type { AppBindings } from "../env";
import { notFound, unauthorized } from "../errors";
import { safeEqual, sha256Hex } from "../platform/crypto";
import { nowIso } from "../../contracts/clock";

/**
 * Runner tokens: each gpu-runner's own credential for `/runner/v1/*`, minted by the operator
 * (`POST /admin/v1/runner-tokens`, `npm run admin -- runner-tokens create`). Only the SHA-256 of the
 * secret is stored, as for API keys (auth/keys.ts); every call looks the token up again, so a
 * revoked token is refused on its very next call, a heartbeat of a task it already holds included.
 * Optional scopes narrow what it may lease: lanes, and the workspaces whose jobs it may run.
 */

const SECRET_PREFIX = "mjr_";
const SECRET_PATTERN = /^mjr_[0-9a-z]{40}$/;
/** How long `lastUsedAt` may lag: a runner heartbeating every few seconds writes it once a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;
export const MAX_TOKEN_WORKSPACES = 50;

export const CreateRunnerTokenSchema = z.strictObject({
  name: z.string().trim().min(1).max(120),
  lanes: z
    .array(PrioritySchema)
    .min(1)
    .refine((v) => new Set(v).size === v.length, { message: "lanes must not repeat" })
    .optional(),
  workspaces: z
    .array(Id("wsp_"))
    .min(1)
    .max(MAX_TOKEN_WORKSPACES)
    .refine((v) => new Set(v).size === v.length, { message: "workspaces must not repeat" })
    .optional(),
});
export type CreateRunnerToken = z.infer<typeof CreateRunnerTokenSchema>;

type Row = typeof runnerTokens.$inferSelect;

/** A token as listings show it: never the secret or its hash. */
export function publicRunnerToken(r: Row) {
  return {
    runnerTokenId: r.id,
    name: r.name,
    prefix: r.prefix,
    lanes: r.lanes,
    workspaces: r.workspaces,
    createdAt: r.createdAt,
    lastUsedAt: r.lastUsedAt,
    revokedAt: r.revokedAt,
  };
}
export type PublicRunnerToken = ReturnType<typeof publicRunnerToken>;

/** A new token: its row, and its secret (returned here once, never stored). */
export async function createRunnerToken(db: Db, req: CreateRunnerToken): Promise<PublicRunnerToken & { secret: string }> {
  if (req.workspaces) {
    const found = await db.select({ id: workspaces.id }).from(workspaces).where(inArray(workspaces.id, req.workspaces)).all();
    const known = new Set(found.map((w) => w.id));
    const index = req.workspaces.findIndex((w) => !known.has(w));
    const missing = req.workspaces[index];
    if (missing !== undefined)
      throw notFound(`workspace not found: ${missing}`, [{ path: `workspaces.${index}`, issue: `notFound:${missing}` }]);
  }
  const secret = SECRET_PREFIX + randomToken(40);
  const row: Row = {
    id: newId("runnerToken"),
    name: req.name,
    prefix: secret.slice(0, 10),
    secretHash: await sha256Hex(secret),
    lanes: req.lanes ?? null,
    workspaces: req.workspaces ?? null,
    createdAt: nowIso(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await db.insert(runnerTokens).values(row);
  return { ...publicRunnerToken(row), secret };
}

export async function listRunnerTokens(db: Db): Promise<PublicRunnerToken[]> {
  const rows = await db.select().from(runnerTokens).orderBy(desc(runnerTokens.createdAt)).all();
  return rows.map(publicRunnerToken);
}

/** Revokes a token at once (a second revoke keeps the first time). */
export async function revokeRunnerToken(db: Db, id: string): Promise<PublicRunnerToken> {
  const row = await db.select().from(runnerTokens).where(eq(runnerTokens.id, id)).get();
  if (!row) throw notFound(`runner token not found: ${id}`, [{ path: "runnerTokenId", issue: `notFound:${id}` }]);
  if (row.revokedAt) return publicRunnerToken(row);
  const revokedAt = nowIso();
  await db.update(runnerTokens).set({ revokedAt }).where(eq(runnerTokens.id, id));
  return publicRunnerToken({ ...row, revokedAt });
}

const NEED = "runner routes need `Authorization: Bearer <runner token>` (minted with `npm run admin -- runner-tokens create`)";

/**
 * Guards `/runner/v1/*`: the bearer secret is hashed and looked up (then compared in constant time,
 * as API keys are); an unknown or revoked token is 401. Sets `runner` for the routes' scope and
 * lease-holder checks.
 */
export const authenticateRunner: MiddlewareHandler<AppBindings> = async (c, next) => {
  const m = /^Bearer\s+(\S+)$/i.exec(c.req.header("authorization")?.trim() ?? "");
  const secret = m?.[1];
  if (!secret || !SECRET_PATTERN.test(secret)) throw unauthorized(NEED);
  const hash = await sha256Hex(secret);
  const db = getDb(c.env.DB);
  const row = await db.select().from(runnerTokens).where(eq(runnerTokens.secretHash, hash)).get();
  if (!row || !safeEqual(row.secretHash, hash)) throw unauthorized(`invalid runner token; ${NEED}`);
  if (row.revokedAt) throw unauthorized(`runner token ${row.id} (${row.name}) was revoked at ${row.revokedAt}`);
  const now = Date.now();
  if (!row.lastUsedAt || Date.parse(row.lastUsedAt) < now - LAST_USED_RESOLUTION_MS) {
    await db
      .update(runnerTokens)
      .set({ lastUsedAt: new Date(now).toISOString() })
      .where(eq(runnerTokens.id, row.id));
  }
  c.set("runner", { tokenId: row.id, name: row.name, lanes: row.lanes, workspaces: row.workspaces });
  await next();
};
