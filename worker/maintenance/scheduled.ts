import type { Env } from "../env";
import { runBlobSweep } from "./blob-sweep-run";
import { purgeExpiredIdempotencyKeys } from "./expired-rows";

/**
 * What the Cron Trigger runs (wrangler.toml `triggers`, every 15 minutes): the orphan sweep of the
 * BLOBS bucket and the purge of expired rows. Each is bounded and idempotent; one failing does not
 * keep the other from running, and the run fails (and is logged) if either did.
 */
export async function runScheduledMaintenance(env: Env, now: Date): Promise<void> {
  const results = await Promise.allSettled([
    runBlobSweep(env, now),
    purgeExpiredIdempotencyKeys(env, now).then((purged) =>
      console.log(JSON.stringify({ level: "info", msg: "expired idempotency keys purged", purged })),
    ),
  ]);
  const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
  if (failed.length > 0) throw new AggregateError(failed, "scheduled maintenance failed");
}
