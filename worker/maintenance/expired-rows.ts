import type { Env } from "../env";

/**
 * Forgets Idempotency-Keys whose 24 hours are over (docs/api.md, "Idempotency"). A create only
 * forgets an expired key when the same key comes again, so without this every keyed create would
 * leave its stored answer (about 2 KB) in D1 for good. Run by the scheduled handler, bounded per
 * run; each run deletes at most `limit` rows, oldest expiry first, and a repeat deletes nothing more.
 */
export const EXPIRED_ROWS_PER_RUN = 5000;

export async function purgeExpiredIdempotencyKeys(env: Pick<Env, "DB">, now: Date, limit = EXPIRED_ROWS_PER_RUN): Promise<number> {
  const res = await env.DB.prepare(
    "DELETE FROM idempotency_keys WHERE rowid IN (SELECT rowid FROM idempotency_keys WHERE expires_at <= ?1 ORDER BY expires_at LIMIT ?2)",
  )
    .bind(now.toISOString(), limit)
    .run();
  return res.meta.changes;
}
