import { eq } from "drizzle-orm";
import type { ClipGenerationResult } from "../../../contracts/clips";
import { nowIso } from "../../../contracts/clock";
import type { Db } from "../../db/client";
import { clipGenerations } from "../../db/schema";
import type { Env } from "../../env";
import { blobKey, blobStore } from "../../storage/blobs";
import { moveLegacyResult, readPointed, writeThenPoint } from "../shared/record-blob";

/**
 * The clip generation record's runner result (layout, engines and every clip) lives in R2 (kind
 * `clips`, one object per save); the `clp_` row keeps its status, clip count and the pointer.
 */

export const CLIPS_BLOB_KIND = "clips";

type ClipRow = typeof clipGenerations.$inferSelect;

/** Completes the record with the runner's result; a redelivered save moves the pointer to an identical object. */
export async function saveClipResult(env: Env, db: Db, projectId: string, id: string, r: ClipGenerationResult): Promise<void> {
  const key = blobKey(projectId, CLIPS_BLOB_KIND, id, "result");
  await writeThenPoint(blobStore(env.BLOBS), key, r, async (resultKey) => {
    const before = await db.select({ key: clipGenerations.resultKey }).from(clipGenerations).where(eq(clipGenerations.id, id)).get();
    const updated = await db
      .update(clipGenerations)
      .set({ status: "completed", result: null, resultKey, clipCount: r.clips.length, updatedAt: nowIso() })
      .where(eq(clipGenerations.id, id))
      .returning({ id: clipGenerations.id });
    return { landed: updated.length > 0, previous: before?.key ?? null };
  });
}

/** The record's result: its object, or the D1 copy of a row the previous version wrote; null while pending. */
export async function clipResultOf(env: Env, row: ClipRow): Promise<Record<string, unknown> | null> {
  return readPointed(blobStore(env.BLOBS), row.resultKey, row.result, `clip generation ${row.id}`);
}

/**
 * Moves a row the previous version wrote (its result in D1) into R2 and clears the D1 copy. Idempotent:
 * a row already moved, or with no result, is left as it is; answers whether this call moved it.
 */
export async function moveLegacyClipResult(env: Env, id: string): Promise<boolean> {
  return moveLegacyResult(env, "clip_generations", CLIPS_BLOB_KIND, id, (legacy) => ({
    clip_count: Array.isArray(legacy["clips"]) ? legacy["clips"].length : 0,
  }));
}
