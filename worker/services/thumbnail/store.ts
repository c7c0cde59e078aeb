import type { Thumbnail } from "../../../contracts/thumbnails";
import type { ThumbnailRunPointer } from "../../db/schema";
import type { Env } from "../../env";
import { blobKey, blobStore } from "../../storage/blobs";
import { readPointed, writeThenPoint } from "../shared/record-blob";

/**
 * A transcript's thumbnail set. Each run's thumbnails are one object in R2 (kind `thumbnails`, owner
 * the transcript, named for the run's job); the transcript row lists the runs in the order they
 * landed, with their counts (`thumbnail_runs`), so counts need no object. Runs the previous version
 * saved are still in `transcripts.thumbnails` (legacy) and come first, as they landed first.
 *
 * A run is added by one conditional append that does nothing when the run is already listed: a
 * redelivered result adds nothing, and two runs finishing at once both land (no read-modify-write).
 */

export const THUMBNAILS_BLOB_KIND = "thumbnails";

/** The run name of the legacy entries once moved into R2 (run names are otherwise job ids). */
const LEGACY_RUN = "legacy";

export interface ThumbnailSet {
  id: string;
  /** Legacy: entries the previous version appended in D1. */
  thumbnails: unknown[];
  thumbnailRuns: ThumbnailRunPointer[];
}

const kindOf = (x: unknown) => (x && typeof x === "object" ? (x as { kind?: unknown }).kind : undefined);

function countKinds(set: readonly unknown[]): { covers: number; frames: number } {
  const kinds = set.map(kindOf);
  return { covers: kinds.filter((k) => k === "cover").length, frames: kinds.filter((k) => k === "frame").length };
}

/** The set's covers and frame picks, from the row alone. */
export function thumbnailCounts(t: Pick<ThumbnailSet, "thumbnails" | "thumbnailRuns">): { thumbnailCount: number; frameCount: number } {
  const legacy = countKinds(t.thumbnails);
  return {
    thumbnailCount: t.thumbnailRuns.reduce((n, r) => n + r.covers, legacy.covers),
    frameCount: t.thumbnailRuns.reduce((n, r) => n + r.frames, legacy.frames),
  };
}

/** Every thumbnail of the set, in the order the runs landed (the runs' objects read in parallel). */
export async function readThumbnails(env: Env, t: ThumbnailSet): Promise<unknown[]> {
  const store = blobStore(env.BLOBS);
  const runs = await Promise.all(
    t.thumbnailRuns.map(async (r) => (await readPointed<unknown[]>(store, r.key, null, `thumbnail run ${r.runId} of ${t.id}`)) ?? []),
  );
  return [...t.thumbnails, ...runs.flat()];
}

const APPEND_RUN = `UPDATE transcripts SET thumbnail_runs = json_insert(thumbnail_runs, '$[#]', json(?1))
  WHERE id = ?2
    AND NOT EXISTS (SELECT 1 FROM json_each(transcripts.thumbnail_runs) WHERE json_extract(value, '$.runId') = ?3)
    AND NOT EXISTS (SELECT 1 FROM json_each(transcripts.thumbnails) WHERE json_extract(value, '$.jobId') = ?3)`;

interface SetRow {
  project_id: string;
  thumbnails: string;
  thumbnail_runs: string;
}

const parseSet = (id: string, row: SetRow): ThumbnailSet => ({
  id,
  thumbnails: JSON.parse(row.thumbnails) as unknown[],
  thumbnailRuns: JSON.parse(row.thumbnail_runs) as ThumbnailRunPointer[],
});

/**
 * Adds a run (`runId`: its job) to the transcript's set: its object first, then the conditional
 * append, read back in the same batch. A run already there (a redelivery, or one the previous version
 * appended to the legacy set) leaves the set as it is and its new object is deleted. Answers the
 * set's counts after the append (zero when there is no such transcript).
 */
export async function addThumbnailRun(
  env: Env,
  projectId: string,
  transcriptId: string,
  runId: string,
  thumbnails: readonly Thumbnail[],
): Promise<{ thumbnailCount: number; frameCount: number }> {
  const key = blobKey(projectId, THUMBNAILS_BLOB_KIND, transcriptId, runId);
  const run: ThumbnailRunPointer = { runId, key, ...countKinds(thumbnails) };
  let after: SetRow | undefined;
  await writeThenPoint(blobStore(env.BLOBS), key, thumbnails, async () => {
    const [appended, read] = await env.DB.batch([
      env.DB.prepare(APPEND_RUN).bind(JSON.stringify(run), transcriptId, runId),
      env.DB.prepare("SELECT project_id, thumbnails, thumbnail_runs FROM transcripts WHERE id = ?").bind(transcriptId),
    ]);
    after = read?.results[0] as SetRow | undefined;
    return { landed: (appended?.meta.changes ?? 0) > 0, previous: null };
  });
  return after ? thumbnailCounts(parseSet(transcriptId, after)) : { thumbnailCount: 0, frameCount: 0 };
}

/**
 * Moves the legacy entries the previous version appended in D1 into one object, listed as the first
 * run, and clears the D1 copy. Revision-checked on both columns: a run landing meanwhile makes the
 * write lose, and it is tried again over the new row. Idempotent: nothing to move answers false.
 */
export async function moveLegacyThumbnails(env: Env, transcriptId: string): Promise<boolean> {
  const store = blobStore(env.BLOBS);
  for (let attempt = 0; attempt < MOVE_ATTEMPTS; attempt++) {
    const row = await env.DB.prepare("SELECT project_id, thumbnails, thumbnail_runs FROM transcripts WHERE id = ?")
      .bind(transcriptId)
      .first<SetRow>();
    if (!row) return false;
    const set = parseSet(transcriptId, row);
    if (set.thumbnails.length === 0) return false;
    const key = blobKey(row.project_id, THUMBNAILS_BLOB_KIND, transcriptId, LEGACY_RUN);
    const legacyRun: ThumbnailRunPointer = { runId: LEGACY_RUN, key, ...countKinds(set.thumbnails) };
    const moved = await writeThenPoint(store, key, set.thumbnails, async () => {
      const r = await env.DB.prepare(
        "UPDATE transcripts SET thumbnails = '[]', thumbnail_runs = ?1 WHERE id = ?2 AND thumbnails = ?3 AND thumbnail_runs = ?4",
      )
        .bind(JSON.stringify([legacyRun, ...set.thumbnailRuns]), transcriptId, row.thumbnails, row.thumbnail_runs)
        .run();
      return { landed: r.meta.changes > 0, previous: null };
    });
    if (moved) return true;
  }
  throw new Error(`the legacy thumbnails of ${transcriptId} kept changing during ${MOVE_ATTEMPTS} attempts to move them`);
}

const MOVE_ATTEMPTS = 5;
