import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db/client";
import { transcriptLayers, transcripts, type TranscriptLayerName } from "../db/schema";
import { blobKey, ownerPrefix, parseBlobKey, type BlobStore } from "../storage/blobs";

/**
 * Where a transcript's layers live: each layer (`raw`, `glossary`, `segments`, `visual`,
 * `translation.<languageKey>`) is one immutable object in the BLOBS bucket under the transcript's
 * project, and the `transcripts` row keeps the pointers (`layers`: name → key) beside its revision,
 * stamps and counts. Every write puts the new object first and then moves the pointer in D1, so a row
 * never points at nothing; the object a pointer moved away from is deleted after the move (best
 * effort), and the orphan sweep (worker/maintenance) removes whatever a crash left.
 */

export type Layer = TranscriptLayerName;
export type LayerPointers = Record<string, string>;

/** The owner kind of layer objects in blob keys (and in the sweep's resolvers). */
export const TRANSCRIPTS_KIND = "transcripts";

/** Every object of one transcript: deleting a transcript deletes this prefix. */
export const transcriptPrefix = (projectId: string, transcriptId: string): string => ownerPrefix(projectId, TRANSCRIPTS_KIND, transcriptId);

/** What a layer read or write needs of the transcript's row. */
export interface LayerOwner {
  id: string;
  projectId: string;
  layers: LayerPointers | null;
}

/** Documented limit behind `transcript_too_large`: the JSON of one layer. */
export const TRANSCRIPT_LAYER_MAX_BYTES = 8 * 1024 * 1024;

export class TranscriptTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`transcript is ${bytes} bytes as JSON; the limit is ${TRANSCRIPT_LAYER_MAX_BYTES} bytes per layer`);
  }
}

/** A layer as JSON; refuses one over the documented limit before anything is written. */
export function layerJson(value: unknown): string {
  const json = JSON.stringify(value);
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > TRANSCRIPT_LAYER_MAX_BYTES) throw new TranscriptTooLargeError(bytes);
  return json;
}

/**
 * Writes each layer's JSON as a new object (in parallel) and answers layer name → key. Nothing points
 * at them yet: the caller's D1 write does that next. A failed write leaves the ones that landed to
 * the sweep.
 */
export async function putLayers(
  blobs: BlobStore,
  owner: { id: string; projectId: string },
  json: Record<string, string>,
): Promise<LayerPointers> {
  const entries = Object.entries(json).map(
    ([name, text]) => [name, blobKey(owner.projectId, TRANSCRIPTS_KIND, owner.id, name), text] as const,
  );
  await Promise.all(entries.map(([, key, text]) => blobs.putJson(key, text)));
  return Object.fromEntries(entries.map(([name, key]) => [name, key]));
}

/** The `layers` column with `pointers` set over what it holds (a legacy row's null counts as none). */
export function withPointers(pointers: LayerPointers): SQL {
  const args = Object.entries(pointers).flatMap(([name, key]) => [sql`, ${pointerPath(name)}, ${key}`]);
  return sql`json_set(coalesce(${transcripts.layers}, '{}')${sql.join(args)})`;
}

/** The JSON path of a layer's pointer: quoted, since `translation.pt-BR` holds a dot. */
export const pointerPath = (name: string): string => `$."${name}"`;

/**
 * After a pointer moved: deletes the objects `before` named for the layers `after` now points
 * elsewhere. Best effort: a reader that loaded the old pointer re-reads the row (readLayer), and
 * whatever is not deleted here the sweep removes.
 */
export async function dropReplaced(blobs: BlobStore, before: LayerPointers | null, after: LayerPointers): Promise<void> {
  const stale = Object.keys(after).flatMap((name) => {
    const old = before?.[name];
    return old && old !== after[name] ? [old] : [];
  });
  await deleteQuietly(blobs, stale, "replaced transcript layer left to the sweep");
}

/** Deletes `keys`, logging instead of failing: the write it follows has already succeeded. */
export async function deleteQuietly(blobs: BlobStore, keys: string[], why: string): Promise<void> {
  if (keys.length === 0) return;
  try {
    await blobs.delete(keys);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: why, keys, error: String(err) }));
  }
}

/**
 * A layer of the transcript `t` (a row read before): its object, or null when the transcript has no
 * such layer. A layer without a pointer is read from the previous version's D1 rows.
 */
export async function readLayer<T>(db: Db, blobs: BlobStore, t: Pick<LayerOwner, "id" | "layers">, layer: Layer): Promise<T | null> {
  const key = t.layers?.[layer];
  if (!key) return readLegacyLayer<T>(db, t.id, layer);
  const value = await blobs.get<T>(key);
  if (value !== null) return value;
  // The row was read before a write moved this pointer on and deleted the object it left: the row's
  // pointer now names the layer's current object.
  const now = await db.select({ layers: transcripts.layers }).from(transcripts).where(eq(transcripts.id, t.id)).get();
  const next = now?.layers?.[layer];
  const moved = next && next !== key ? await blobs.get<T>(next) : null;
  if (moved === null) throw new Error(`transcript ${t.id} layer ${layer} points at a missing object ${next ?? key}`);
  return moved;
}

/** A layer of the transcript `transcriptId` when its row is not at hand: the row's pointer, then the object. */
export async function readLayerOf<T>(db: Db, blobs: BlobStore, transcriptId: string, layer: Layer): Promise<T | null> {
  const t = await db
    .select({ id: transcripts.id, layers: transcripts.layers })
    .from(transcripts)
    .where(eq(transcripts.id, transcriptId))
    .get();
  return t ? readLayer<T>(db, blobs, t, layer) : null;
}

/** Legacy fallback: a layer the previous version stored in D1 as JSON split into parts (`transcript_layers`). */
export async function readLegacyLayer<T>(db: Db, transcriptId: string, layer: Layer): Promise<T | null> {
  const json = await legacyLayerJson(db, transcriptId, layer);
  return json === null ? null : (JSON.parse(json) as T);
}

/** Legacy: the JSON text of a layer kept in `transcript_layers`, or null when it has no rows. */
export async function legacyLayerJson(db: Db, transcriptId: string, layer: Layer): Promise<string | null> {
  const rows = await db
    .select({ data: transcriptLayers.data })
    .from(transcriptLayers)
    .where(and(eq(transcriptLayers.transcriptId, transcriptId), eq(transcriptLayers.layer, layer)))
    .orderBy(asc(transcriptLayers.part))
    .all();
  return rows.length === 0 ? null : rows.map((r) => r.data).join("");
}

/**
 * For the orphan sweep: of `keys` (layer objects), those a transcript row points at, in one D1 query
 * (the owners' ids parsed from the keys, the pointers read from their rows). A legacy row points at
 * nothing in the bucket, so none of its objects exist to be kept.
 */
export async function referencedLayerKeys(db: Db, keys: readonly string[]): Promise<Set<string>> {
  const owners = [...new Set(keys.map((k) => parseBlobKey(k)?.ownerId).filter((id): id is string => id !== undefined))];
  if (owners.length === 0) return new Set();
  // Two JSON arrays rather than one bound parameter per key: D1 binds at most 100 per statement.
  const { results } = await db.$client
    .prepare(
      `SELECT p.value AS key FROM transcripts t, json_each(t.layers) p
       WHERE t.id IN (SELECT value FROM json_each(?1)) AND p.value IN (SELECT value FROM json_each(?2))`,
    )
    .bind(JSON.stringify(owners), JSON.stringify(keys))
    .all<{ key: string }>();
  return new Set(results.map((r) => r.key));
}
