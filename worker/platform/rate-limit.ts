import { ApiError } from "../errors";

/**
 * Growing delays kept in D1 (table `rate_limits`, one row per key). An attempt is admitted under a set
 * of keys at once or refused under all of them: while any key's wait runs, the attempt is refused
 * before anything else is done, and a refused attempt changes nothing, so hammering a closed key does
 * not hold it closed. An admitted attempt counts under every key. A key's free attempts follow one
 * another with no wait; the last of them starts a wait before the next (`baseDelayMs`), and each
 * attempt after it doubles the wait, up to the key's cap. A key quiet for its window starts again.
 *
 * The attempt is counted when it is admitted (not when it fails), in one statement: concurrent
 * attempts cannot all slip through an open key, and a success undoes its count (`forgetAttempts`,
 * `refundAttempt`).
 */

export interface BackoffRule {
  /** Attempts a key may make back to back in its window; after the last of them, each attempt waits. */
  freeAttempts: number;
  /** The wait after the last free attempt; each attempt after it doubles the wait. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A key with no attempt for this long starts again from zero (and its row may be pruned). */
  windowMs: number;
}

export interface ThrottleKey {
  key: string;
  rule: BackoffRule;
}

/** SQL for the wait after attempt number `n` under a row's rule (`r.` is the rule's columns). */
const delaySql = (n: string, r: string) =>
  `(CASE WHEN ${n} >= ${r}free_attempts THEN min(${r}max_delay_ms, ${r}base_delay_ms << min(${n} - ${r}free_attempts, 40)) ELSE 0 END)`;

/**
 * Admits one attempt under every key, or throws 429 `rateLimited` with `Retry-After` (the longest
 * wait among the keys). Rows past their window and their wait are pruned in the same batch, so the
 * table holds only keys with an attempt in their window.
 */
export async function admitAttempt(d1: D1Database, keys: readonly ThrottleKey[], now = Date.now()): Promise<void> {
  if (keys.length === 0) return;
  // ?1 is now; each key brings five values (key and rule), numbered from ?2.
  const rows = keys.map((_, i) => `(${[0, 1, 2, 3, 4].map((j) => `?${2 + i * 5 + j}`).join(", ")})`).join(", ");
  const keyParams = keys.map((_, i) => `?${2 + i * 5}`).join(", ");
  const n = "(CASE WHEN rate_limits.last_attempt_at + excluded.window_ms <= ?1 THEN 1 ELSE rate_limits.attempts + 1 END)";
  const firstDelay = delaySql("1", "v.");
  const nextDelay = delaySql(n, "excluded.");
  // The NOT EXISTS reads the table before any row is written (SQLite materialises a SELECT that reads
  // its own target first), so one key's new wait cannot refuse the same attempt's other keys.
  const upsert = `
    INSERT INTO rate_limits (key, attempts, blocked_until, last_attempt_at, expires_at, free_attempts, base_delay_ms, max_delay_ms, window_ms)
    SELECT v.key, 1, ?1 + ${firstDelay}, ?1, ?1 + max(v.window_ms, ${firstDelay}), v.free_attempts, v.base_delay_ms, v.max_delay_ms, v.window_ms
    FROM (SELECT column1 AS key, column2 AS free_attempts, column3 AS base_delay_ms, column4 AS max_delay_ms, column5 AS window_ms
          FROM (VALUES ${rows})) AS v
    WHERE NOT EXISTS (SELECT 1 FROM rate_limits WHERE key IN (${keyParams}) AND blocked_until > ?1)
    ON CONFLICT (key) DO UPDATE SET
      attempts = ${n},
      blocked_until = ?1 + ${nextDelay},
      last_attempt_at = ?1,
      expires_at = ?1 + max(excluded.window_ms, ${nextDelay}),
      free_attempts = excluded.free_attempts,
      base_delay_ms = excluded.base_delay_ms,
      max_delay_ms = excluded.max_delay_ms,
      window_ms = excluded.window_ms
    RETURNING key`;
  const params = [now, ...keys.flatMap((k) => [k.key, k.rule.freeAttempts, k.rule.baseDelayMs, k.rule.maxDelayMs, k.rule.windowMs])];
  const [, admitted] = await d1.batch([
    d1.prepare("DELETE FROM rate_limits WHERE expires_at <= ?").bind(now),
    d1.prepare(upsert).bind(...params),
  ]);
  if ((admitted?.results.length ?? 0) > 0) return;

  const waiting = await d1
    .prepare(`SELECT max(blocked_until) AS until FROM rate_limits WHERE key IN (${keys.map(() => "?").join(", ")})`)
    .bind(...keys.map((k) => k.key))
    .first<{ until: number | null }>();
  const retryAfter = Math.max(1, Math.ceil(((waiting?.until ?? now) - now) / 1000));
  throw new ApiError(
    "rateLimited",
    `too many attempts; try again in ${retryAfter} s`,
    [],
    { rateLimit: { retryAfterSeconds: retryAfter } },
    { "Retry-After": String(retryAfter) },
  );
}

/** Forgets the keys' attempts and waits (e.g. an address's, after a successful sign-in from it). */
export async function forgetAttempts(d1: D1Database, keys: readonly string[]): Promise<void> {
  if (keys.length === 0) return;
  await d1
    .prepare(`DELETE FROM rate_limits WHERE key IN (${keys.map(() => "?").join(", ")})`)
    .bind(...keys)
    .run();
}

/** Takes back one admitted attempt under `key` without touching its wait (a success shared with others' keys). */
export async function refundAttempt(d1: D1Database, key: string): Promise<void> {
  await d1.prepare("UPDATE rate_limits SET attempts = max(attempts - 1, 0) WHERE key = ?").bind(key).run();
}
