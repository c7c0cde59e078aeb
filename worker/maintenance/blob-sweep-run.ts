import type { Env } from "../env";
import { sweepOrphans, type SweepResult } from "../storage/blob-sweep";
import { blobStore } from "../storage/blobs";
import { blobOwners } from "./blob-owners";

/**
 * One scheduled run of the orphan sweep over the BLOBS bucket: bounded (SWEEP_MAX_OBJECTS listed),
 * resuming where the previous run stopped. The cursor is kept in the bucket itself, beside the
 * objects it walks but outside the `p/` keys the sweep lists, so it needs no table and no binding.
 */

/** An object younger than this is kept: its pointer may be on its way (a write puts the object first). */
export const SWEEP_GRACE_MS = 60 * 60 * 1000;
/** Objects listed per run: a few D1 queries and R2 list pages, well inside a scheduled handler's limits. */
export const SWEEP_MAX_OBJECTS = 5000;
/** Where the next run starts. */
export const SWEEP_CURSOR_KEY = "maintenance/blob-sweep.json";

interface SweepState {
  cursor: string | null;
  at: string;
}

export async function runBlobSweep(env: Pick<Env, "DB" | "BLOBS">, now: Date): Promise<SweepResult> {
  const state = await env.BLOBS.get(SWEEP_CURSOR_KEY);
  const cursor = state ? ((await state.json<SweepState>()).cursor ?? undefined) : undefined;
  const sweep = (from: string | undefined) =>
    sweepOrphans(env.BLOBS, blobStore(env.BLOBS), blobOwners(env), {
      now,
      graceMs: SWEEP_GRACE_MS,
      maxObjects: SWEEP_MAX_OBJECTS,
      cursor: from,
    });
  let result: SweepResult;
  try {
    result = await sweep(cursor);
  } catch (err) {
    // A cursor R2 no longer accepts: start the walk again rather than stall on it every run.
    if (cursor === undefined) throw err;
    console.error(JSON.stringify({ level: "warn", msg: "blob sweep cursor refused; starting over", error: String(err) }));
    result = await sweep(undefined);
  }
  await env.BLOBS.put(SWEEP_CURSOR_KEY, JSON.stringify({ cursor: result.cursor, at: now.toISOString() } satisfies SweepState));
  console.log(
    JSON.stringify({
      level: "info",
      msg: "blob sweep",
      scanned: result.scanned,
      deleted: result.deleted.length,
      done: result.cursor === null,
    }),
  );
  return result;
}
