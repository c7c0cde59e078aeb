import { and, eq, isNotNull, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { transcripts } from "../../db/schema";
import type { Env } from "../../env";
import { blobKey, blobStore } from "../../storage/blobs";
import { readPointed, writeThenPoint } from "../shared/record-blob";

/**
 * A transcript's metadata record (title, description, keywords, categories and chapters, which grow
 * with the media's length) lives in R2 (kind `metadata`, owner the transcript, one object per save);
 * the transcript row keeps the pointer (`metadata_key`). A new run replaces the record: the pointer
 * moves to the new object and the old one is deleted.
 */

export const METADATA_BLOB_KIND = "metadata";

/** Points the transcript at a new record; false when there is no such transcript. */
export async function saveMetadataRecord(
  env: Env,
  db: Db,
  projectId: string,
  transcriptId: string,
  record: Record<string, unknown>,
  updatedAt: string,
): Promise<boolean> {
  return writeThenPoint(
    blobStore(env.BLOBS),
    blobKey(projectId, METADATA_BLOB_KIND, transcriptId, "record"),
    record,
    async (metadataKey) => {
      const before = await db.select({ key: transcripts.metadataKey }).from(transcripts).where(eq(transcripts.id, transcriptId)).get();
      // The legacy copy goes with it: the new record replaces whichever the transcript had.
      const updated = await db
        .update(transcripts)
        .set({ metadata: null, metadataKey, updatedAt })
        .where(eq(transcripts.id, transcriptId))
        .returning({ id: transcripts.id });
      return { landed: updated.length > 0, previous: before?.key ?? null };
    },
  );
}

/** The transcript's record: its object, or the D1 copy of a row the previous version wrote; null when it has none. */
export async function metadataOf(
  env: Env,
  t: { id: string; metadataKey: string | null; metadata: Record<string, unknown> | null },
): Promise<Record<string, unknown> | null> {
  return readPointed(blobStore(env.BLOBS), t.metadataKey, t.metadata, `metadata of ${t.id}`);
}

/**
 * Moves a record the previous version wrote (in D1) into R2 and clears the D1 copy. Idempotent: a
 * transcript already moved, or without a record, is left as it is; answers whether this call moved it.
 */
export async function moveLegacyMetadata(env: Env, db: Db, transcriptId: string): Promise<boolean> {
  const t = await db
    .select({ projectId: transcripts.projectId, metadata: transcripts.metadata, metadataKey: transcripts.metadataKey })
    .from(transcripts)
    .where(eq(transcripts.id, transcriptId))
    .get();
  if (!t || t.metadataKey !== null || t.metadata === null) return false;
  const key = blobKey(t.projectId, METADATA_BLOB_KIND, transcriptId, "record");
  return writeThenPoint(blobStore(env.BLOBS), key, t.metadata, async (metadataKey) => {
    const updated = await db
      .update(transcripts)
      .set({ metadata: null, metadataKey })
      .where(and(eq(transcripts.id, transcriptId), isNull(transcripts.metadataKey), isNotNull(transcripts.metadata)))
      .returning({ id: transcripts.id });
    return { landed: updated.length > 0, previous: null };
  });
}
