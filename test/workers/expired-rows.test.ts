import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import worker from "../../worker/index";
import { purgeExpiredIdempotencyKeys } from "../../worker/maintenance/expired-rows";

/**
 * Expired Idempotency-Keys are forgotten by the scheduled maintenance (worker/maintenance/
 * expired-rows.ts), not only when the same key comes again, so keyed creates leave nothing in D1
 * after their 24 hours.
 */

const NOW = new Date("2026-11-27T12:00:00.000Z");
const HOUR = 3_600_000;

async function storeKey(key: string, expiresAt: Date): Promise<void> {
  await env.DB.prepare(
    "INSERT INTO idempotency_keys (project_id, key, request_hash, state, response_status, response_body, created_at, expires_at) VALUES ('prj_expiry', ?, 'h', 'done', 201, '{}', ?, ?)",
  )
    .bind(key, new Date(expiresAt.getTime() - 24 * HOUR).toISOString(), expiresAt.toISOString())
    .run();
}

async function keysLeft(): Promise<string[]> {
  const rows = await env.DB.prepare("SELECT key FROM idempotency_keys WHERE project_id = 'prj_expiry' ORDER BY key").all<{ key: string }>();
  return rows.results.map((r) => r.key);
}

beforeEach(async () => {
  await env.DB.prepare("DELETE FROM idempotency_keys WHERE project_id = 'prj_expiry'").run();
});

describe("expired idempotency keys", () => {
  it("are deleted once their expiry has passed; keys still within their 24 hours stay", async () => {
    await storeKey("expired", new Date(NOW.getTime() - HOUR));
    await storeKey("live", new Date(NOW.getTime() + HOUR));
    expect(await purgeExpiredIdempotencyKeys(env, NOW)).toBe(1);
    expect(await keysLeft()).toEqual(["live"]);
  });

  it("are deleted at most `limit` per run, oldest expiry first", async () => {
    for (let i = 0; i < 5; i++) await storeKey(`k${i}`, new Date(NOW.getTime() - (i + 1) * HOUR));
    expect(await purgeExpiredIdempotencyKeys(env, NOW, 2)).toBe(2);
    expect(await keysLeft()).toEqual(["k0", "k1", "k2"]);
  });

  it("are purged by the scheduled handler the Cron Trigger runs", async () => {
    await storeKey("expired", new Date(NOW.getTime() - HOUR));
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: NOW, cron: "*/15 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    expect(await keysLeft()).toEqual([]);
  });
});
