import { and, eq, gte, lt, ne, sql } from "drizzle-orm";
import type { CatalogCutover, CatalogWrite } from "../../contracts/catalog";
import { collectionName, SPARSE_ENGINE } from "../../contracts/catalog";
import { normalize } from "../../contracts/embeddings/vectors";
import type { Db } from "../db/client";
import { catalogChunks, catalogEntries } from "../db/schema";
import { ApiError } from "../errors";
import type { VectorStore } from "./vector-store/interface";
import { nowIso } from "../../contracts/clock";

/**
 * Writing the catalog, for the indexer's runner calls. A run writes its chunks as a new generation
 * (`{jobId}.{attempt}`) beside the live one, which keeps answering; the cutover makes the new one live
 * and then removes every other generation of that transcript; a rollback removes the run's own
 * chunks. Every operation is idempotent: chunk ids are deterministic, so a call repeated after a
 * lost answer writes nothing twice.
 */

export interface Scope {
  db: Db;
  store: VectorStore;
  projectId: string;
  jobId: string;
  attempt: number;
}

export const generationOf = (jobId: string, attempt: number) => `${jobId}.${attempt}`;

const DELETE_BATCH = 90;
const INSERT_ROWS = 10;

export async function writeChunks(s: Scope, body: CatalogWrite): Promise<{ written: number }> {
  const generation = generationOf(s.jobId, s.attempt);
  for (const c of body.chunks) {
    if (c.vector.length !== body.dense.dimensions)
      throw new ApiError("protocolError", `chunk ${c.position}: vector has ${c.vector.length} dimensions, not ${body.dense.dimensions}`);
  }
  const rows = body.chunks.map((c) => ({
    chunkId: `${body.textSourceId}:${generation}:${c.position}`,
    projectId: s.projectId,
    textSourceId: body.textSourceId,
    generation,
    position: c.position,
    start: c.start,
    end: c.end,
    segmentIds: c.segmentIds,
    // Control characters would collide with the search's highlight markers (sparse.ts); they carry no words.
    text: c.text.replace(/[\u0000-\u001f\u007f]/g, " "),
  }));
  // D1 binds at most 100 parameters per statement: 10 rows of 9 columns each.
  const inserts = [];
  for (let i = 0; i < rows.length; i += INSERT_ROWS)
    inserts.push(
      s.db
        .insert(catalogChunks)
        .values(rows.slice(i, i + INSERT_ROWS))
        .onConflictDoNothing({ target: catalogChunks.chunkId }),
    );
  const [first, ...rest] = inserts;
  if (first) await s.db.batch([first, ...rest]);
  const ids = await s.db
    .select({ id: catalogChunks.id, position: catalogChunks.position })
    .from(catalogChunks)
    .where(
      and(
        eq(catalogChunks.projectId, s.projectId),
        eq(catalogChunks.textSourceId, body.textSourceId),
        eq(catalogChunks.generation, generation),
      ),
    )
    .all();
  const idOf = new Map(ids.map((r) => [r.position, r.id]));
  await s.store.upsert(
    collectionName(s.projectId),
    body.chunks.map((c) => ({
      chunkRowId: idOf.get(c.position)!,
      textSourceId: body.textSourceId,
      model: body.dense.model,
      vector: normalize(Float32Array.from(c.vector)),
    })),
  );
  return { written: body.chunks.length };
}

/** The new generation goes live; the previous one (and any left by a lost attempt) is removed. */
export async function cutover(s: Scope, body: CatalogCutover): Promise<{ removedStaleChunks: number; reindexed: boolean }> {
  const generation = generationOf(s.jobId, s.attempt);
  const where = and(eq(catalogChunks.projectId, s.projectId), eq(catalogChunks.textSourceId, body.textSourceId));
  const written = await s.db
    .select({ n: sql<number>`count(*)` })
    .from(catalogChunks)
    .where(and(where, eq(catalogChunks.generation, generation)))
    .get();
  if ((written?.n ?? 0) !== body.chunkCount)
    throw new ApiError("protocolError", `cutover of ${body.textSourceId}: ${written?.n ?? 0} chunks written, ${body.chunkCount} announced`);
  const before = await s.db
    .select({ generation: catalogEntries.generation })
    .from(catalogEntries)
    .where(and(eq(catalogEntries.projectId, s.projectId), eq(catalogEntries.textSourceId, body.textSourceId)))
    .get();
  const entry = {
    projectId: s.projectId,
    textSourceId: body.textSourceId,
    generation,
    jobId: s.jobId,
    chunkCount: body.chunkCount,
    segmentCount: body.segmentCount,
    transcriptRevision: body.transcriptRevision,
    language: body.language,
    denseEngine: body.dense.engine,
    denseModel: body.dense.model,
    dimensions: body.dense.dimensions,
    sparseEngine: SPARSE_ENGINE,
    indexedAt: nowIso(),
  };
  await s.db
    .insert(catalogEntries)
    .values(entry)
    .onConflictDoUpdate({ target: [catalogEntries.projectId, catalogEntries.textSourceId], set: entry });
  const stale = await s.db
    .select({ id: catalogChunks.id })
    .from(catalogChunks)
    .where(and(where, ne(catalogChunks.generation, generation)))
    .all();
  await removeChunks(
    s,
    stale.map((r) => r.id),
  );
  return { removedStaleChunks: stale.length, reindexed: before !== undefined };
}

/** Removes the run's own chunks of these transcripts, unless a cutover already made them live. */
export async function rollback(s: Scope, textSourceIds: readonly string[]): Promise<{ removedChunks: number }> {
  let removed = 0;
  const generation = generationOf(s.jobId, s.attempt);
  for (const id of textSourceIds) removed += await removeGenerations(s, id, { from: generation, to: `${generation}\u0000` });
  return { removedChunks: removed };
}

/** A job that ended without completing: every generation it wrote that is not live goes. */
export async function removeJobLeftovers(s: Omit<Scope, "attempt">, textSourceIds: readonly string[]): Promise<number> {
  let removed = 0;
  // Every `{jobId}.{attempt}`: '/' sorts right after '.', so the range holds exactly the job's generations.
  for (const id of textSourceIds) removed += await removeGenerations(s, id, { from: `${s.jobId}.`, to: `${s.jobId}/` });
  return removed;
}

/** `DELETE /v1/catalog/transcriptions/{id}`: the transcript leaves the index at once. */
export async function dropTranscript(
  s: Pick<Scope, "db" | "store" | "projectId">,
  textSourceId: string,
): Promise<{ removedChunks: number }> {
  await s.db.delete(catalogEntries).where(and(eq(catalogEntries.projectId, s.projectId), eq(catalogEntries.textSourceId, textSourceId)));
  const rows = await s.db
    .select({ id: catalogChunks.id })
    .from(catalogChunks)
    .where(and(eq(catalogChunks.projectId, s.projectId), eq(catalogChunks.textSourceId, textSourceId)))
    .all();
  await removeChunks(
    s,
    rows.map((r) => r.id),
  );
  return { removedChunks: rows.length };
}

/** Chunks of generations in [from, to) that are not live. */
async function removeGenerations(
  s: Pick<Scope, "db" | "store" | "projectId">,
  textSourceId: string,
  range: { from: string; to: string },
): Promise<number> {
  const live = await s.db
    .select({ generation: catalogEntries.generation })
    .from(catalogEntries)
    .where(and(eq(catalogEntries.projectId, s.projectId), eq(catalogEntries.textSourceId, textSourceId)))
    .get();
  const rows = await s.db
    .select({ id: catalogChunks.id })
    .from(catalogChunks)
    .where(
      and(
        eq(catalogChunks.projectId, s.projectId),
        eq(catalogChunks.textSourceId, textSourceId),
        gte(catalogChunks.generation, range.from),
        lt(catalogChunks.generation, range.to),
        live ? ne(catalogChunks.generation, live.generation) : undefined,
      ),
    )
    .all();
  await removeChunks(
    s,
    rows.map((r) => r.id),
  );
  return rows.length;
}

/** Rows first (the FTS index follows by trigger), then their vectors: a vector without a row is never answered. */
async function removeChunks(s: Pick<Scope, "db" | "store" | "projectId">, ids: readonly number[]): Promise<void> {
  for (let i = 0; i < ids.length; i += DELETE_BATCH) {
    const part = ids.slice(i, i + DELETE_BATCH);
    await s.db.run(sql`DELETE FROM catalog_chunks WHERE id IN (SELECT value FROM json_each(${JSON.stringify(part)}))`);
    await s.store.remove(collectionName(s.projectId), part);
  }
}
