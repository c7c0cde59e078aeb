import { DurableObject } from "cloudflare:workers";
import { Bm25Index, type IndexedChunk } from "./catalog/bm25";
import { candidates, readEntries, searchScope, type CandidateRequest, type Candidates, type Entry } from "./catalog/candidates";
import { CATALOG_SCHEMA } from "./catalog/schema";
import { VectorIndex, type ScoredRow } from "./catalog/vector-index";

/**
 * CatalogDO: one project's catalog (`svc_proj_{projectId}`, addressed by that name), in the object's
 * own SQLite storage (tables: durable-objects/catalog/schema.ts). Nothing of another project is ever
 * in it, so no query needs a project filter and none can return another tenant's rows.
 *
 * It holds:
 * - every generation of every indexed transcript's chunks, and the entry naming the live one
 *   (written by the indexer's runner calls through worker/catalog/index-writer.ts);
 * - the sparse index: BM25 over an inverted index in memory while the object is warm (catalog/bm25.ts,
 *   scoring and tokenizing as SQLite FTS5's bm25() with `porter unicode61 remove_diacritics 2` did),
 *   built from the chunks' text on the first search after a start and kept in step with every write
 *   and removal, so BM25's statistics are this project's alone;
 * - the vectors, when the deployment keeps them in the object (vector store `durable-object`):
 *   stored as float32 blobs and, while the object is warm, decoded in memory (catalog/vector-index.ts),
 *   loaded on the first search after a start and kept in step with every write and removal.
 *
 * RPC methods (each one synchronous SQLite work in one transaction, so a call is atomic and a repeated
 * call after a lost answer changes nothing twice):
 * - `writeChunks` / `putVectors` / `queryVectors` / `removeVectors`: the indexer's writes, and the
 *   vector-store interface (worker/catalog/vector-store/durable-object.ts);
 * - `cutover`, `removeGenerations`, `drop`: generations going live and away; `eraseSome`: a project's deletion;
 * - `entries`, `scope`, `search`: the inventory and a search's candidates (catalog/candidates.ts).
 */

export interface ChunkInput {
  position: number;
  start: number;
  end: number;
  segmentIds: number[];
  /** Speaker labels of the chunk's segments (absent or empty: not diarized). */
  speakers?: string[];
  text: string;
}

export interface EntryInput {
  jobId: string;
  chunkCount: number;
  segmentCount: number;
  transcriptRevision: number;
  language: string | null;
  denseEngine: string;
  denseModel: string;
  dimensions: number;
  sparseEngine: string;
  indexedAt: string;
}

export interface CatalogEntry extends EntryInput {
  textSourceId: string;
  generation: string;
}

export interface VectorInput {
  chunkRowId: number;
  textSourceId: string;
  model: string;
  vector: Float32Array;
}

/**
 * The most vector bytes one object keeps decoded in memory. An isolate has 128 MB, shared by the
 * JS heap, SQLite's page cache, the sparse index (catalog/bm25.ts: about 150 bytes a chunk on the bench
 * corpus, 14 MiB at 100,000 chunks, more with a larger vocabulary: docs/deploy.md) and possibly other
 * objects: 48 MiB of vectors leaves room for the rest.
 * At 100 dimensions (local-wink) that is 125,829 chunks; at 768 (bge-base) 16,384; at 1024, 12,288.
 * Storage (10 GB per object) is not the bound: a chunk with its text and vector is a few KB.
 */
export const OBJECT_VECTOR_BYTES = 48 * 2 ** 20;
export const maxObjectVectors = (dimensions: number): number => Math.floor(OBJECT_VECTOR_BYTES / (4 * dimensions));

export class CatalogDO extends DurableObject {
  private readonly sql: SqlStorage;
  private index: VectorIndex | null = null;
  private sparseIndex: Bm25Index | null = null;
  private liveEntries: Entry[] | null = null;

  constructor(ctx: DurableObjectState, env: Cloudflare.Env) {
    super(ctx, env);
    this.sql = ctx.storage.sql;
    for (const statement of CATALOG_SCHEMA) this.sql.exec(statement);
  }

  /** Inserts the chunks of one generation (a chunk already written stays as it is); answers their row ids by position. */
  async writeChunks(
    textSourceId: string,
    generation: string,
    chunks: readonly ChunkInput[],
  ): Promise<Array<{ position: number; id: number }>> {
    return this.ctx.storage.transactionSync(() => {
      for (const c of chunks)
        this.sql.exec(
          'INSERT INTO chunks (chunk_id, text_source_id, generation, position, start, "end", segment_ids, text) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ' +
            "ON CONFLICT(chunk_id) DO NOTHING",
          `${textSourceId}:${generation}:${c.position}`,
          textSourceId,
          generation,
          c.position,
          c.start,
          c.end,
          JSON.stringify(c.segmentIds),
          c.text,
        );
      const written = this.sql
        .exec<{ position: number; id: number }>(
          "SELECT position, id FROM chunks WHERE text_source_id = ? AND generation = ?",
          textSourceId,
          generation,
        )
        .toArray()
        .map((r) => ({ position: r.position, id: r.id }));
      const idAt = new Map(written.map((r) => [r.position, r.id]));
      for (const c of chunks)
        if (c.speakers && c.speakers.length > 0 && idAt.has(c.position))
          this.sql.exec(
            "INSERT INTO chunk_speakers (chunk_row_id, speakers) VALUES (?, ?) ON CONFLICT(chunk_row_id) DO NOTHING",
            idAt.get(c.position)!,
            JSON.stringify(c.speakers),
          );
      if (this.sparseIndex) {
        const byPosition = new Map(chunks.map((c) => [c.position, c]));
        const added: IndexedChunk[] = written.flatMap(({ position, id }) => {
          const c = byPosition.get(position);
          if (!c || this.sparseIndex!.has(id)) return [];
          return [{ id, text_source_id: textSourceId, generation, start: c.start, end: c.end, text: c.text }];
        });
        // Row ids only grow; should one not, the index is rebuilt from storage on the next search.
        if (!this.sparseIndex.add(added)) this.sparseIndex = null;
      }
      return written;
    });
  }

  /**
   * Stores vectors (replacing a point with the same row id). Refused, writing nothing, when the
   * collection would hold more than `maxObjectVectors` of that size: such a collection belongs in Vectorize.
   */
  async putVectors(points: readonly VectorInput[]): Promise<{ stored: number } | { refused: string }> {
    const dims = points[0]?.vector.length ?? 0;
    if (dims === 0) return { stored: 0 };
    return this.ctx.storage.transactionSync(() => {
      const json = JSON.stringify(points.map((p) => p.chunkRowId));
      const held = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM vectors").one().n;
      const known = this.sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM vectors WHERE chunk_row_id IN (SELECT value FROM json_each(?))", json)
        .one().n;
      const max = maxObjectVectors(dims);
      if (held - known + points.length > max)
        return {
          refused: `the collection would hold ${held - known + points.length} vectors of ${dims} dimensions, more than one catalog object keeps (${max}): use VECTOR_STORE=vectorize`,
        };
      for (const p of points)
        this.sql.exec(
          "INSERT INTO vectors (chunk_row_id, text_source_id, model, vector) VALUES (?, ?, ?, ?) " +
            "ON CONFLICT(chunk_row_id) DO UPDATE SET text_source_id = excluded.text_source_id, model = excluded.model, vector = excluded.vector",
          p.chunkRowId,
          p.textSourceId,
          p.model,
          p.vector.buffer.slice(p.vector.byteOffset, p.vector.byteOffset + p.vector.byteLength),
        );
      if (this.index) {
        const placed = new Map(
          this.sql
            .exec<{ id: number; generation: string; start: number; end: number }>(
              'SELECT id, generation, start, "end" FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
              json,
            )
            .toArray()
            .map((r) => [r.id, r]),
        );
        for (const p of points) {
          const c = placed.get(p.chunkRowId);
          this.index.put({ rowId: p.chunkRowId, textSourceId: p.textSourceId, model: p.model, vector: p.vector, ...place(c) });
        }
      }
      return { stored: points.length };
    });
  }

  /** The vector store's query: nearest stored points of the model, any generation (the search decides what is live). */
  async queryVectors(q: { vector: Float32Array; model: string; topK: number; textSourceIds?: readonly string[] }): Promise<ScoredRow[]> {
    return this.vectors().topK(q.model, q.vector, q.topK, undefined, q.textSourceIds);
  }

  async removeVectors(chunkRowIds: readonly number[]): Promise<void> {
    this.ctx.storage.transactionSync(() => this.deleteVectors(chunkRowIds));
  }

  /**
   * Makes `generation` live if exactly `chunkCount` of its chunks are written, then removes every
   * other generation of the transcript. Answers the removed row ids (for an external vector store).
   */
  async cutover(
    textSourceId: string,
    generation: string,
    entry: EntryInput,
  ): Promise<{ written: number } | { removedRowIds: number[]; reindexed: boolean }> {
    return this.ctx.storage.transactionSync(() => {
      const written = this.sql
        .exec<{ n: number }>("SELECT count(*) AS n FROM chunks WHERE text_source_id = ? AND generation = ?", textSourceId, generation)
        .one().n;
      if (written !== entry.chunkCount) return { written };
      const before = this.sql.exec("SELECT 1 FROM entries WHERE text_source_id = ?", textSourceId).toArray().length > 0;
      this.liveEntries = null;
      this.sql.exec(
        "INSERT INTO entries (text_source_id, generation, job_id, chunk_count, segment_count, transcript_revision, language, dense_engine, dense_model, dimensions, sparse_engine, indexed_at) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(text_source_id) DO UPDATE SET generation = excluded.generation, job_id = excluded.job_id, " +
          "chunk_count = excluded.chunk_count, segment_count = excluded.segment_count, transcript_revision = excluded.transcript_revision, language = excluded.language, " +
          "dense_engine = excluded.dense_engine, dense_model = excluded.dense_model, dimensions = excluded.dimensions, sparse_engine = excluded.sparse_engine, indexed_at = excluded.indexed_at",
        textSourceId,
        generation,
        entry.jobId,
        entry.chunkCount,
        entry.segmentCount,
        entry.transcriptRevision,
        entry.language,
        entry.denseEngine,
        entry.denseModel,
        entry.dimensions,
        entry.sparseEngine,
        entry.indexedAt,
      );
      const stale = this.sql
        .exec<{ id: number }>("SELECT id FROM chunks WHERE text_source_id = ? AND generation != ?", textSourceId, generation)
        .toArray()
        .map((r) => r.id);
      this.deleteChunks(stale);
      return { removedRowIds: stale, reindexed: before };
    });
  }

  /** Removes the chunks of generations in [from, to) of these transcripts that are not live; answers their row ids. */
  async removeGenerations(textSourceIds: readonly string[], range: { from: string; to: string }): Promise<number[]> {
    return this.ctx.storage.transactionSync(() => {
      const ids = this.sql
        .exec<{ id: number }>(
          "SELECT c.id FROM chunks c LEFT JOIN entries e ON e.text_source_id = c.text_source_id " +
            "WHERE c.text_source_id IN (SELECT value FROM json_each(?)) AND c.generation >= ? AND c.generation < ? " +
            "AND (e.generation IS NULL OR e.generation != c.generation)",
          JSON.stringify(textSourceIds),
          range.from,
          range.to,
        )
        .toArray()
        .map((r) => r.id);
      this.deleteChunks(ids);
      return ids;
    });
  }

  /** The transcript leaves the catalog: its entry and every chunk; null when it was not in it. */
  async drop(textSourceId: string): Promise<{ removedRowIds: number[] } | null> {
    return this.ctx.storage.transactionSync(() => {
      const had = this.sql.exec("SELECT 1 FROM entries WHERE text_source_id = ?", textSourceId).toArray().length > 0;
      if (!had) return null;
      this.liveEntries = null;
      this.sql.exec("DELETE FROM entries WHERE text_source_id = ?", textSourceId);
      const ids = this.sql
        .exec<{ id: number }>("SELECT id FROM chunks WHERE text_source_id = ?", textSourceId)
        .toArray()
        .map((r) => r.id);
      this.deleteChunks(ids);
      return { removedRowIds: ids };
    });
  }

  /**
   * A project's deletion (worker/deletion/): removes up to `limit` chunks of any generation with their
   * entries, answering their row ids (for an external vector store) and whether the catalog is now
   * empty. Once it is, the object's storage is cleared whole and the empty tables made again, so
   * nothing of the project stays in it and a late call still finds the tables it expects.
   */
  async eraseSome(limit: number): Promise<{ removedRowIds: number[]; empty: boolean }> {
    const removed = this.ctx.storage.transactionSync(() => {
      this.liveEntries = null;
      this.sql.exec("DELETE FROM entries");
      const ids = this.sql
        .exec<{ id: number }>("SELECT id FROM chunks ORDER BY id LIMIT ?", Math.max(1, limit))
        .toArray()
        .map((r) => r.id);
      this.deleteChunks(ids);
      return ids;
    });
    const left = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM chunks").one().n;
    if (left > 0) return { removedRowIds: removed, empty: false };
    await this.ctx.storage.deleteAll();
    this.index = null;
    this.sparseIndex = null;
    this.liveEntries = null;
    for (const statement of CATALOG_SCHEMA) this.sql.exec(statement);
    return { removedRowIds: removed, empty: true };
  }

  /** The inventory: every indexed transcript with its live generation. */
  async entries(): Promise<CatalogEntry[]> {
    return this.sql
      .exec<Record<string, SqlStorageValue>>("SELECT * FROM entries")
      .toArray()
      .map((r) => ({
        textSourceId: String(r["text_source_id"]),
        generation: String(r["generation"]),
        jobId: String(r["job_id"]),
        chunkCount: Number(r["chunk_count"]),
        segmentCount: Number(r["segment_count"]),
        transcriptRevision: Number(r["transcript_revision"]),
        language: r["language"] === null ? null : String(r["language"]),
        denseEngine: String(r["dense_engine"]),
        denseModel: String(r["dense_model"]),
        dimensions: Number(r["dimensions"]),
        sparseEngine: String(r["sparse_engine"]),
        indexedAt: String(r["indexed_at"]),
      }));
  }

  /** The transcripts a search may answer from (for a Worker that must filter an external store's query first). */
  async scope(req: Pick<CandidateRequest, "textSourceIds" | "language" | "denseModel">): Promise<{ denseIds: string[]; entries: number }> {
    const s = searchScope(this.entryList(), req);
    return { denseIds: s.denseIds, entries: s.entries.length };
  }

  /** A search's candidates, fused, with the rows the answer can show (catalog/candidates.ts). */
  async search(req: CandidateRequest): Promise<Candidates> {
    return candidates(this.sql, { entries: () => this.entryList(), vectors: () => this.vectors(), bm25: () => this.bm25() }, req);
  }

  /** The entries as searches read them, kept between searches until an entry changes (cutover, drop). */
  private entryList(): Entry[] {
    return (this.liveEntries ??= readEntries(this.sql));
  }

  /** Chunk rows, their postings and their vectors in the object, in the caller's transaction. */
  private deleteChunks(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.sql.exec("DELETE FROM chunks WHERE id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
    this.sql.exec("DELETE FROM chunk_speakers WHERE chunk_row_id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
    this.sparseIndex?.remove(ids);
    this.deleteVectors(ids);
  }

  private deleteVectors(ids: readonly number[]): void {
    if (ids.length === 0) return;
    this.sql.exec("DELETE FROM vectors WHERE chunk_row_id IN (SELECT value FROM json_each(?))", JSON.stringify(ids));
    if (this.index) for (const id of ids) this.index.remove(id);
  }

  /**
   * The in-memory BM25 index, built from the chunks' text on first use after the object started, and
   * again once the chunks written or removed since have outgrown a quarter of it (bm25.ts).
   */
  private bm25(): Bm25Index {
    if (this.sparseIndex && !this.sparseIndex.stale) return this.sparseIndex;
    this.sparseIndex = null; // the old index is garbage before the new one is built
    this.sparseIndex = Bm25Index.build(
      this.sql.exec<IndexedChunk & Record<string, SqlStorageValue>>(
        'SELECT id, text_source_id, generation, start, "end", text FROM chunks ORDER BY id',
      ),
    );
    return this.sparseIndex;
  }

  /** The in-memory vectors, decoded from storage on first use after the object started. */
  private vectors(): VectorIndex {
    if (this.index) return this.index;
    const index = new VectorIndex();
    // Exact room per model (the stored vectors' byte length / 4 is the dimension count).
    for (const m of this.sql.exec<{ model: string; dims: number; n: number }>(
      "SELECT model, max(length(vector)) / 4 AS dims, count(*) AS n FROM vectors GROUP BY model",
    ))
      index.reserve(m.model, m.dims, m.n);
    const rows = this.sql.exec<{
      chunk_row_id: number;
      text_source_id: string;
      model: string;
      vector: ArrayBuffer;
      generation: string | null;
      start: number | null;
      end: number | null;
    }>(
      'SELECT v.chunk_row_id, v.text_source_id, v.model, v.vector, c.generation, c.start, c."end" FROM vectors v LEFT JOIN chunks c ON c.id = v.chunk_row_id',
    );
    // Stored little-endian (putVectors writes the Float32Array's bytes); workerd runs on little-endian hosts only.
    for (const r of rows)
      index.put({ rowId: r.chunk_row_id, textSourceId: r.text_source_id, model: r.model, vector: new Float32Array(r.vector), ...place(r) });
    this.index = index;
    return index;
  }
}

/** A chunk's generation and times; a vector whose chunk row is missing gets no generation, so it is never live. */
function place(c: { generation: string | null; start: number | null; end: number | null } | undefined) {
  return c && c.generation !== null
    ? { generation: c.generation, start: c.start ?? 0, end: c.end ?? 0 }
    : { generation: null, start: 0, end: 0 };
}
