import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { transcripts } from "../db/schema";

/**
 * Whether a record made from a transcript still matches it (docs/api.md, "Stale outputs and
 * regenerate"). Every edit moves the transcript's `revision` (segment edits, speaker renames and
 * merges); a record notes the revision it was made from, so a read compares the two.
 */

/** The fields a record read answers beside what it was made from. */
export interface Staleness {
  /** The revision the record was made from; null while it is pending, or when it was made before revisions were noted. */
  transcriptRevision: number | null;
  /** The transcript's revision now; null when the transcript is gone. */
  currentRevision: number | null;
  /** True when the transcript changed since the record was made; null when either revision is unknown. */
  stale: boolean | null;
}

export function staleness(madeFrom: number | null | undefined, current: number | null | undefined): Staleness {
  const transcriptRevision = madeFrom ?? null;
  const currentRevision = current ?? null;
  const stale = transcriptRevision === null || currentRevision === null ? null : currentRevision > transcriptRevision;
  return { transcriptRevision, currentRevision, stale };
}

/** The project's transcript's revision now; null when there is no such transcript. */
export async function currentRevisionOf(db: Db, projectId: string, id: string): Promise<number | null> {
  const row = await db
    .select({ revision: transcripts.revision })
    .from(transcripts)
    .where(and(eq(transcripts.id, id), eq(transcripts.projectId, projectId)))
    .get();
  return row?.revision ?? null;
}

/**
 * The revisions now of the project's transcripts `ids`, for a list page: one statement whatever the
 * page's size (the ids travel as one JSON array, since D1 binds at most 100 parameters).
 */
export async function currentRevisionsOf(db: Db, projectId: string, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: transcripts.id, revision: transcripts.revision })
    .from(transcripts)
    .where(and(eq(transcripts.projectId, projectId), sql`${transcripts.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`))
    .all();
  return new Map(rows.map((r) => [r.id, r.revision]));
}

/**
 * The transcript's own files in the bucket (`outputKeys`): the revision they hold and whether an edit
 * has passed them. Null for both while the transcript has no files.
 */
export function outputKeysStaleness(t: { outputKeys: Record<string, string> | null; outputKeysRevision: number; revision: number }): {
  outputKeysRevision: number | null;
  outputKeysStale: boolean | null;
} {
  if (!t.outputKeys) return { outputKeysRevision: null, outputKeysStale: null };
  return { outputKeysRevision: t.outputKeysRevision, outputKeysStale: t.revision > t.outputKeysRevision };
}
