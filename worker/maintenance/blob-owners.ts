import { getDb } from "../db/client";
import type { Env } from "../env";
import { parseBlobKey } from "../storage/blobs";
import type { ReferencedKeys } from "../storage/blob-sweep";
import { CLIPS_BLOB_KIND } from "../services/clip-generation/store";
import { DUBBING_BLOB_KIND } from "../services/dubbing/store";
import { METADATA_BLOB_KIND } from "../services/metadata/store";
import { SUMMARY_BLOB_KIND } from "../services/summarization/store";
import { THUMBNAILS_BLOB_KIND } from "../services/thumbnail/store";
import { referencedLayerKeys, TRANSCRIPTS_KIND } from "../transcripts/layers";

/**
 * Who points at each kind of object in BLOBS, for the orphan sweep (worker/storage/blob-sweep.ts):
 * of a page of one kind's keys, those a D1 row still points at. One query per page, by the owner ids
 * the keys name (bound as one JSON array: D1 caps a statement's parameters at 100). A kind missing
 * here is never swept.
 */
export function blobOwners(env: Pick<Env, "DB">): Record<string, ReferencedKeys> {
  const db = getDb(env.DB);
  return {
    [TRANSCRIPTS_KIND]: (keys) => referencedLayerKeys(db, keys),
    [CLIPS_BLOB_KIND]: pointedBy(env, "SELECT result_key AS k FROM clip_generations WHERE id IN (SELECT value FROM json_each(?1))"),
    [DUBBING_BLOB_KIND]: pointedBy(env, "SELECT result_key AS k FROM dubbings WHERE id IN (SELECT value FROM json_each(?1))"),
    [SUMMARY_BLOB_KIND]: pointedBy(env, "SELECT result_key AS k FROM summarizations WHERE id IN (SELECT value FROM json_each(?1))"),
    [METADATA_BLOB_KIND]: pointedBy(env, "SELECT metadata_key AS k FROM transcripts WHERE id IN (SELECT value FROM json_each(?1))"),
    [THUMBNAILS_BLOB_KIND]: pointedBy(
      env,
      `SELECT json_extract(r.value, '$.key') AS k FROM transcripts t, json_each(t.thumbnail_runs) r
       WHERE t.id IN (SELECT value FROM json_each(?1))`,
    ),
  };
}

/** A resolver running `sql` (one `k` column of keys) over the owner ids of the page's keys. */
function pointedBy(env: Pick<Env, "DB">, sql: string): ReferencedKeys {
  return async (keys) => {
    const owners = [...new Set(keys.flatMap((k) => parseBlobKey(k)?.ownerId ?? []))];
    if (owners.length === 0) return new Set();
    const rows = await env.DB.prepare(sql).bind(JSON.stringify(owners)).all<{ k: string | null }>();
    const pointed = new Set(rows.results.flatMap((r) => (r.k === null ? [] : [r.k])));
    return new Set(keys.filter((k) => pointed.has(k)));
  };
}
