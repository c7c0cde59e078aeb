import { eq, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";
import { ApiError } from "../errors";

export interface RateLimit {
  /** Attempts allowed per window. */
  limit: number;
  windowMs: number;
}

/**
 * Counts one attempt under `key` in a fixed window stored in D1 and refuses it with 429 `rateLimited`
 * once the window holds more than `limit`. One upsert … RETURNING, so concurrent attempts never both
 * slip under the limit. Refused attempts count too: hammering only keeps the window full.
 */
export async function hitRateLimit(db: Db, key: string, rule: RateLimit, now = Date.now()): Promise<void> {
  const fresh = now - rule.windowMs;
  const row = await db
    .insert(rateLimits)
    .values({ key, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`CASE WHEN ${rateLimits.windowStart} <= ${fresh} THEN 1 ELSE ${rateLimits.count} + 1 END`,
        windowStart: sql`CASE WHEN ${rateLimits.windowStart} <= ${fresh} THEN ${now} ELSE ${rateLimits.windowStart} END`,
      },
    })
    .returning()
    .get();
  if (row.count <= rule.limit) return;
  const retryAfter = Math.max(1, Math.ceil((row.windowStart + rule.windowMs - now) / 1000));
  throw new ApiError(
    "rateLimited",
    `too many attempts; try again in ${retryAfter} s`,
    [],
    { rateLimit: { limit: rule.limit, windowSeconds: rule.windowMs / 1000, retryAfterSeconds: retryAfter } },
    { "Retry-After": String(retryAfter) },
  );
}

/** Forgets `key`'s attempts (e.g. after a successful sign-in). */
export async function resetRateLimit(db: Db, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

/**
 * Deletes counters whose window started more than `olderThanMs` ago. Anyone can add rows (sign-in
 * attempts for made-up emails), so callers prune now and then instead of letting the table grow.
 */
export async function pruneRateLimits(db: Db, olderThanMs: number, now = Date.now()): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, now - olderThanMs));
}
