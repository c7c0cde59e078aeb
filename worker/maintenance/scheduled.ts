import type { Env } from "../env";
import { runBlobSweep } from "./blob-sweep-run";
import { purgeExpiredIdempotencyKeys } from "./expired-rows";
import { runRetention } from "../deletion/retention";

/**
 * What the Cron Trigger runs (wrangler.toml `triggers`, every 15 minutes): the orphan sweep of the
 * BLOBS bucket, the purge of expired rows, and the retention sweep (which also finishes deletions
 * left in progress: worker/deletion/retention.ts). Each is bounded and idempotent; one failing does not
 * keep the other from running, and the run fails (and is logged) if either did.
 */
export async function runScheduledMaintenance(env: Env, now: Date): Promise<void> {
  const results = await Promise.allSettled([
    runBlobSweep(env, now),
    purgeExpiredIdempotencyKeys(env, now).then((purged) =>
      console.log(JSON.stringify({ level: "info", msg: "expired idempotency keys purged", purged })),
    ),
    runRetention(env, now).then((run) => console.log(JSON.stringify({ level: "info", msg: "retention", ...run }))),
  ]);
  const failed = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
  if (failed.length > 0) throw new AggregateError(failed, "scheduled maintenance failed");
}
