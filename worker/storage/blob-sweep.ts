import { BLOB_ROOT, parseBlobKey, type BlobStore } from "./blobs";

/**
 * Finds and removes objects no D1 row points at: what a crash between an object's write and its
 * pointer's leaves behind (blobs.ts writes the object first), and earlier revisions a pointer has
 * moved past whose delete did not happen. Bounded per run (`maxObjects` listed), resumable through
 * the cursor it answers, and idempotent: a run repeated deletes nothing more.
 *
 * Each kind of owner answers which of a page of its keys a row still points at; a kind nobody
 * answers for, and any key the store did not make, is kept: the sweep deletes only what it
 * positively knows is unreferenced. Objects younger than `graceMs` are kept too, since their
 * pointer may be about to be written.
 */

/** Of `keys` (all of one kind), the ones a D1 row points at. */
export type ReferencedKeys = (keys: readonly string[]) => Promise<Set<string>>;

export interface SweepOptions {
  now: Date;
  /** An object younger than this is never removed (its pointer may be on its way). */
  graceMs: number;
  /** At most this many objects are listed in one run. */
  maxObjects: number;
  /** Where the previous run stopped; undefined starts from the beginning. */
  cursor?: string | undefined;
}

export interface SweepResult {
  scanned: number;
  deleted: string[];
  /** Where the next run starts; null when this run reached the end of the bucket. */
  cursor: string | null;
}

const PAGE = 500;

export async function sweepOrphans(
  bucket: R2Bucket,
  store: BlobStore,
  owners: Readonly<Record<string, ReferencedKeys>>,
  opts: SweepOptions,
): Promise<SweepResult> {
  let cursor = opts.cursor;
  let scanned = 0;
  const deleted: string[] = [];
  const cutoff = opts.now.getTime() - opts.graceMs;
  while (scanned < opts.maxObjects) {
    const page = await bucket.list({ prefix: BLOB_ROOT, limit: Math.min(PAGE, opts.maxObjects - scanned), ...(cursor ? { cursor } : {}) });
    scanned += page.objects.length;
    const byKind = new Map<string, string[]>();
    for (const o of page.objects) {
      const parsed = parseBlobKey(o.key);
      if (!parsed || o.uploaded.getTime() > cutoff || !Object.hasOwn(owners, parsed.kind)) continue;
      byKind.set(parsed.kind, [...(byKind.get(parsed.kind) ?? []), o.key]);
    }
    for (const [kind, keys] of byKind) {
      const referenced = await owners[kind]!(keys);
      const orphans = keys.filter((k) => !referenced.has(k));
      await store.delete(orphans);
      deleted.push(...orphans);
    }
    if (!page.truncated) return { scanned, deleted, cursor: null };
    cursor = page.cursor;
  }
  return { scanned, deleted, cursor: cursor ?? null };
}
