import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { transcriptLayers, transcripts } from "../db/schema";
import type { BlobStore } from "../storage/blobs";
import { legacyLayerJson, putLayers, type Layer } from "./layers";

/**
 * Moves one transcript's layers from the previous version's D1 rows (`transcript_layers`) into the
 * BLOBS bucket, for the migration command that runs it over every transcript. Idempotent and safe
 * beside live writes:
 * - each legacy layer is written as a new object, then one D1 batch sets the pointers of the layers
 *   that still have none (a pointer a newer write set meanwhile wins; the object moved for it is left
 *   to the sweep) and deletes the transcript's legacy rows;
 * - a layer that already has a pointer is not copied (its legacy rows are stale) but its rows go too;
 * - run again, it finds no rows and does nothing.
 */
export async function moveLegacyLayers(db: Db, blobs: BlobStore, transcriptId: string): Promise<{ moved: Layer[]; deletedRows: number }> {
  const [t, names] = await Promise.all([
    db
      .select({ id: transcripts.id, projectId: transcripts.projectId, layers: transcripts.layers })
      .from(transcripts)
      .where(eq(transcripts.id, transcriptId))
      .get(),
    db
      .selectDistinct({ layer: transcriptLayers.layer })
      .from(transcriptLayers)
      .where(eq(transcriptLayers.transcriptId, transcriptId))
      .all(),
  ]);
  if (!t || names.length === 0) return { moved: [], deletedRows: 0 };
  const toMove = names.map((n) => n.layer).filter((name) => !t.layers?.[name]);
  const json: Record<string, string> = {};
  for (const name of toMove) {
    const text = await legacyLayerJson(db, t.id, name);
    if (text !== null) json[name] = text;
  }
  const pointers = await putLayers(blobs, t, json);
  const clear = db.delete(transcriptLayers).where(eq(transcriptLayers.transcriptId, t.id));
  if (Object.keys(pointers).length === 0) {
    const removed = await clear.run();
    return { moved: [], deletedRows: removed.meta.changes };
  }
  const pairs = Object.entries(pointers).map(([name, key]) => sql`${name}, ${key}`);
  const [, removed] = await db.batch([
    // json_patch(moved, current): a pointer the row holds now overrides the one moved in.
    db
      .update(transcripts)
      .set({ layers: sql`json_patch(json_object(${sql.join(pairs, sql`, `)}), coalesce(${transcripts.layers}, '{}'))` })
      .where(eq(transcripts.id, t.id)),
    clear,
  ]);
  return { moved: Object.keys(pointers) as Layer[], deletedRows: removed.meta.changes };
}
