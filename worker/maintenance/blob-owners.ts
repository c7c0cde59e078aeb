import type { Db } from "../db/client";
import type { ReferencedKeys } from "../storage/blob-sweep";
import { referencedLayerKeys, TRANSCRIPTS_KIND } from "../transcripts/layers";

/**
 * Who owns the objects in the BLOBS bucket, by the kind in their keys (worker/storage/blobs.ts
 * `blobKey`): for each kind, which of a page of keys a D1 row still points at. The orphan sweep
 * deletes only keys of a kind listed here that no row points at; a kind missing here is never swept.
 */
export function blobOwners(db: Db): Record<string, ReferencedKeys> {
  return {
    [TRANSCRIPTS_KIND]: (keys) => referencedLayerKeys(db, keys),
  };
}
