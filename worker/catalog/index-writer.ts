import type { CatalogCutover, CatalogWrite } from "../../contracts/catalog";
import { collectionName, SPARSE_ENGINE } from "../../contracts/catalog";
import { nowIso } from "../../contracts/clock";
import { normalize } from "../../contracts/embeddings/vectors";
import type { CatalogDO } from "../../durable-objects/catalog-do";
import { catalogObject } from "../../durable-objects/catalog/address";
import { ApiError } from "../errors";
import type { VectorStore } from "./vector-store/interface";

/**
 * Writing the catalog, for the indexer's runner calls. The project's chunks, entries and sparse
 * index live in its catalog object (durable-objects/catalog-do.ts); vectors in the vector store
 * (the same object by default, or Vectorize). A run writes its chunks as a new generation
 * (`{jobId}.{attempt}`) beside the live one, which keeps answering; the cutover makes the new one live
 * and then removes every other generation of that transcript; a rollback removes the run's own
 * chunks. Every operation is idempotent: chunk ids are deterministic, so a call repeated after a
 * lost answer writes nothing twice.
 */

export interface Scope {
  catalog: DurableObjectNamespace<CatalogDO>;
  store: VectorStore;
  projectId: string;
  jobId: string;
  attempt: number;
}

export const generationOf = (jobId: string, attempt: number) => `${jobId}.${attempt}`;

const objectOf = (s: Pick<Scope, "catalog" | "projectId">) => catalogObject(s.catalog, collectionName(s.projectId));

export async function writeChunks(s: Scope, body: CatalogWrite): Promise<{ written: number }> {
  const generation = generationOf(s.jobId, s.attempt);
  for (const c of body.chunks) {
    if (c.vector.length !== body.dense.dimensions)
      throw new ApiError("protocolError", `chunk ${c.position}: vector has ${c.vector.length} dimensions, not ${body.dense.dimensions}`);
  }
  const ids = await objectOf(s).writeChunks(
    body.textSourceId,
    generation,
    body.chunks.map((c) => ({
      position: c.position,
      start: c.start,
      end: c.end,
      segmentIds: c.segmentIds,
      speakers: c.speakers,
      // Control characters would collide with the search's highlight markers (sparse.ts); they carry no words.
      text: c.text.replace(/[\u0000-\u001f\u007f]/g, " "),
    })),
  );
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
  const answer = await objectOf(s).cutover(body.textSourceId, generationOf(s.jobId, s.attempt), {
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
  });
  if ("written" in answer)
    throw new ApiError("protocolError", `cutover of ${body.textSourceId}: ${answer.written} chunks written, ${body.chunkCount} announced`);
  await removeVectors(s, answer.removedRowIds);
  return { removedStaleChunks: answer.removedRowIds.length, reindexed: answer.reindexed };
}

/** Removes the run's own chunks of these transcripts, unless a cutover already made them live. */
export async function rollback(s: Scope, textSourceIds: readonly string[]): Promise<{ removedChunks: number }> {
  const generation = generationOf(s.jobId, s.attempt);
  const removed = await objectOf(s).removeGenerations(textSourceIds, { from: generation, to: `${generation}\u0000` });
  await removeVectors(s, removed);
  return { removedChunks: removed.length };
}

/** A job that ended without completing: every generation it wrote that is not live goes. */
export async function removeJobLeftovers(s: Omit<Scope, "attempt">, textSourceIds: readonly string[]): Promise<number> {
  // Every `{jobId}.{attempt}`: '/' sorts right after '.', so the range holds exactly the job's generations.
  const removed = await objectOf(s).removeGenerations(textSourceIds, { from: `${s.jobId}.`, to: `${s.jobId}/` });
  await removeVectors(s, removed);
  return removed.length;
}

/** `DELETE /v1/catalog/transcriptions/{id}`: the transcript leaves the index at once; null when it was not in it. */
export async function dropTranscript(
  s: Pick<Scope, "catalog" | "store" | "projectId">,
  textSourceId: string,
): Promise<{ removedChunks: number } | null> {
  const answer = await objectOf(s).drop(textSourceId);
  if (!answer) return null;
  await removeVectors(s, answer.removedRowIds);
  return { removedChunks: answer.removedRowIds.length };
}

/**
 * After the object removed the rows (and, for vectors it keeps itself, their vectors): the points in
 * an external store. Rows first, so a vector without a row is never answered.
 */
async function removeVectors(s: Pick<Scope, "store" | "projectId">, ids: readonly number[]): Promise<void> {
  if (!s.store.inObject && ids.length > 0) await s.store.remove(collectionName(s.projectId), ids);
}
