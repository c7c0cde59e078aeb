import type { Env } from "../../env";
import { blobKey, blobStore, type BlobStore } from "../../storage/blobs";

/**
 * A record's bulk value in R2 (worker/storage/blobs.ts), its D1 row keeping only the pointer: the
 * write order, the legacy read and the legacy move every record kind follows (clips, dubbings,
 * summaries, thumbnail runs, metadata).
 */

/** What a D1 write that points a row at a new object answers. */
export interface Pointed {
  /** False when the row's conditional write did not land (no such row, or another write won). */
  landed: boolean;
  /** The object the row pointed at before, now unreferenced (null: none, or legacy D1 data). */
  previous: string | null;
}

/**
 * Writes `value` under `key`, then `point(key)`, the D1 write that makes the row point at it: the
 * object is always there before any row names it. The object nobody points at afterwards is deleted
 * (best effort; the sweep removes what a failed delete or a crash leaves).
 */
export async function writeThenPoint(
  store: BlobStore,
  key: string,
  value: unknown,
  point: (key: string) => Promise<Pointed>,
): Promise<boolean> {
  await store.put(key, value);
  // A D1 write that throws may still have landed: its object stays, and the sweep decides.
  const pointed = await point(key);
  if (!pointed.landed) await bestEffortDelete(store, key);
  else if (pointed.previous !== null && pointed.previous !== key) await bestEffortDelete(store, pointed.previous);
  return pointed.landed;
}

/**
 * The row's value: its object when it points at one, else the legacy copy the previous version kept
 * in D1 (null when there is neither). A pointer to a missing object is a fault, never an empty value.
 */
export async function readPointed<T>(store: BlobStore, key: string | null, legacy: T | null, what: string): Promise<T | null> {
  if (key === null) return legacy; // legacy: rows written before the move keep their value in D1
  const value = await store.get<T>(key);
  if (value === null) throw new Error(`${what}: its object ${key} is missing`);
  return value;
}

/** The record tables whose `result` JSON column moved to R2, pointed at by `result_key`. */
export type ResultTable = "clip_generations" | "dubbings" | "summarizations";

/**
 * Moves a row the previous version wrote (its `result` in D1) into R2 (object `result` of `kind`)
 * and clears the D1 copy; `counts` names columns to fill from the legacy value (snake_case) in the
 * same write. Idempotent: a row already moved, or without a result, is left as it is; answers
 * whether this call moved it.
 */
export async function moveLegacyResult(
  env: Env,
  table: ResultTable,
  kind: string,
  id: string,
  counts: (legacy: Record<string, unknown>) => Record<string, number> = () => ({}),
): Promise<boolean> {
  const legacyRow = `id = ? AND result IS NOT NULL AND result_key IS NULL`;
  const row = await env.DB.prepare(`SELECT project_id, result FROM ${table} WHERE ${legacyRow}`)
    .bind(id)
    .first<{ project_id: string; result: string }>();
  if (!row) return false;
  const legacy = JSON.parse(row.result) as Record<string, unknown>;
  const extra = counts(legacy);
  const sets = Object.keys(extra)
    .map((column) => `, ${column} = ?`)
    .join("");
  return writeThenPoint(blobStore(env.BLOBS), blobKey(row.project_id, kind, id, "result"), legacy, async (resultKey) => {
    const r = await env.DB.prepare(`UPDATE ${table} SET result = NULL, result_key = ?${sets} WHERE ${legacyRow}`)
      .bind(resultKey, ...Object.values(extra), id)
      .run();
    return { landed: r.meta.changes > 0, previous: null };
  });
}

async function bestEffortDelete(store: BlobStore, key: string): Promise<void> {
  try {
    await store.delete([key]);
  } catch {
    // The sweep (worker/storage/blob-sweep.ts) removes an object no row points at.
  }
}
