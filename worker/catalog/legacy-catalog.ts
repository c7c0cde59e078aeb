import { collectionName } from "../../contracts/catalog";
import { bytesToVector } from "../../contracts/embeddings/vectors";
import { catalogObject } from "../../durable-objects/catalog/address";
import type { Env } from "../env";
import type { VectorPoint, VectorStore } from "./vector-store/interface";

/**
 * Moves one transcript's catalog entry from the previous version's D1 tables (`catalog_entries`,
 * `catalog_chunks` with its FTS5 index, `catalog_vectors` for the local vector store) into its
 * project's catalog object, for the data-plane migration command. Only the live generation moves (a
 * generation that never went live is an indexer run the upgrade interrupted: it is dropped). Safe to
 * repeat and beside live indexing:
 * - chunks are written by their deterministic ids (a repeat writes nothing twice), the vectors under
 *   the object's row ids, then the cutover makes the generation live in the object;
 * - a transcript the object already has an entry for (indexed again since the upgrade) keeps it: the
 *   newer index wins and the old rows are only removed;
 * - the D1 rows go last, in one batch, so a move that dies half way is simply done again.
 *
 * Vectors come from D1 (the previous local store) or, for a deployment that kept them in Vectorize,
 * from Vectorize itself (by the previous ids, the D1 row ids), and go to the store the deployment
 * uses now; the previous Vectorize points are deleted after the cutover.
 */

interface LegacyEntry {
  project_id: string;
  text_source_id: string;
  generation: string;
  job_id: string;
  chunk_count: number;
  segment_count: number;
  transcript_revision: number;
  language: string | null;
  dense_engine: string;
  dense_model: string;
  dimensions: number;
  sparse_engine: string;
  indexed_at: string;
}

interface LegacyChunk {
  id: number;
  position: number;
  start: number;
  end: number;
  segment_ids: string;
  text: string;
}

export async function moveLegacyCatalogEntry(
  env: Env,
  store: VectorStore,
  projectId: string,
  textSourceId: string,
  /** The transcripts the project's object already has entries for, when the caller read them once for several moves. */
  inObject?: ReadonlySet<string>,
): Promise<boolean> {
  const entry = await env.DB.prepare("SELECT * FROM catalog_entries WHERE project_id = ? AND text_source_id = ?")
    .bind(projectId, textSourceId)
    .first<LegacyEntry>();
  if (!entry) return false;
  const collection = collectionName(projectId);
  const object = catalogObject(env.CATALOG, collection);
  const indexedSince = (inObject ?? new Set((await object.entries()).map((e) => e.textSourceId))).has(textSourceId);
  const chunks = (
    await env.DB.prepare(
      'SELECT id, position, start, "end", segment_ids, text FROM catalog_chunks WHERE project_id = ? AND text_source_id = ? AND generation = ? ORDER BY position',
    )
      .bind(projectId, textSourceId, entry.generation)
      .all<LegacyChunk>()
  ).results;
  let previousPointIds: string[] = [];
  if (!indexedSince) {
    const written = await object.writeChunks(
      textSourceId,
      entry.generation,
      chunks.map((c) => ({
        position: c.position,
        start: c.start,
        end: c.end,
        segmentIds: JSON.parse(c.segment_ids) as number[],
        text: c.text,
      })),
    );
    const rowIdOf = new Map(written.map((w) => [w.position, w.id]));
    const legacy = await legacyVectors(env, collection, chunks);
    previousPointIds = legacy.fromVectorize ? chunks.map((c) => String(c.id)) : [];
    const points: VectorPoint[] = chunks.flatMap((c) => {
      const vector = legacy.vectors.get(c.id);
      const chunkRowId = rowIdOf.get(c.position);
      return vector && chunkRowId !== undefined ? [{ chunkRowId, textSourceId, model: entry.dense_model, vector }] : [];
    });
    if (points.length > 0) await store.upsert(collection, points);
    const cut = await object.cutover(textSourceId, entry.generation, {
      jobId: entry.job_id,
      chunkCount: entry.chunk_count,
      segmentCount: entry.segment_count,
      transcriptRevision: entry.transcript_revision,
      language: entry.language,
      denseEngine: entry.dense_engine,
      denseModel: entry.dense_model,
      dimensions: entry.dimensions,
      sparseEngine: entry.sparse_engine,
      indexedAt: entry.indexed_at,
    });
    if ("written" in cut)
      throw new Error(
        `catalog entry ${textSourceId}: ${cut.written} of its ${entry.chunk_count} chunks are in D1; it cannot be moved whole`,
      );
  }
  const all = (
    await env.DB.prepare("SELECT id FROM catalog_chunks WHERE project_id = ? AND text_source_id = ?")
      .bind(projectId, textSourceId)
      .all<{ id: number }>()
  ).results.map((r) => r.id);
  const ids = JSON.stringify(all);
  await env.DB.batch([
    env.DB.prepare("DELETE FROM catalog_vectors WHERE chunk_row_id IN (SELECT value FROM json_each(?))").bind(ids),
    env.DB.prepare("DELETE FROM catalog_chunks WHERE id IN (SELECT value FROM json_each(?))").bind(ids),
    env.DB.prepare("DELETE FROM catalog_entries WHERE project_id = ? AND text_source_id = ?").bind(projectId, textSourceId),
  ]);
  if (env.VECTORIZE && previousPointIds.length > 0) await env.VECTORIZE.deleteByIds(previousPointIds);
  return true;
}

/** The chunks' vectors by their D1 row id: from D1's local store, else from Vectorize by the previous ids. */
async function legacyVectors(
  env: Env,
  collection: string,
  chunks: readonly LegacyChunk[],
): Promise<{ vectors: Map<number, Float32Array>; fromVectorize: boolean }> {
  const vectors = new Map<number, Float32Array>();
  const ids = JSON.stringify(chunks.map((c) => c.id));
  const rows = await env.DB.prepare(
    "SELECT chunk_row_id, vector FROM catalog_vectors WHERE chunk_row_id IN (SELECT value FROM json_each(?))",
  )
    .bind(ids)
    .all<{ chunk_row_id: number; vector: ArrayBuffer }>();
  for (const r of rows.results) vectors.set(r.chunk_row_id, bytesToVector(new Uint8Array(r.vector)));
  if (vectors.size > 0 || !env.VECTORIZE || chunks.length === 0) return { vectors, fromVectorize: false };
  // Vectorize answers at most 20 vectors with their values per call (developers.cloudflare.com/vectorize/platform/limits).
  for (let i = 0; i < chunks.length; i += VECTORIZE_GET_BATCH) {
    const found = await env.VECTORIZE.getByIds(chunks.slice(i, i + VECTORIZE_GET_BATCH).map((c) => String(c.id)));
    for (const v of found)
      if (v.namespace === collection && v.values) vectors.set(Number(v.id), Float32Array.from(v.values as ArrayLike<number>));
  }
  return { vectors, fromVectorize: true };
}

const VECTORIZE_GET_BATCH = 20;
