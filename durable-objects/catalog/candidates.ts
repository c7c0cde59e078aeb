import { queryMarks, type Bm25Index, type SparseHit } from "./bm25";
import { queryTerms, requiredCoverage } from "./sparse";
import type { ScanFilter, ScoredRow, VectorIndex } from "./vector-index";

/**
 * A search's candidate generation inside the project's catalog object, in one call: the live
 * entries, the dense list (exact cosine over the object's in-memory vectors, or the matches the
 * Worker brought from Vectorize), the sparse list (BM25 over the object's in-memory index of this
 * project's chunks only: bm25.ts), the hybrid admission rule, reciprocal rank fusion, and the rows and
 * highlights of the candidates the answer can show. The Worker embeds the query before and reranks
 * the head after (worker/catalog/search.ts).
 */

export type SearchMode = "hybrid" | "dense" | "sparse";

export interface CandidateRequest {
  query: string;
  mode: SearchMode;
  limit: number;
  textSourceIds?: readonly string[];
  language?: string;
  minStart?: number;
  maxEnd?: number;
  /** Candidates each list brings to the fusion. */
  candidates: number;
  rrfK: number;
  /** How many of the fused list's first candidates the Worker's reranker reads (0: it has none). */
  headSize: number;
  /** The query's embedding model; null: no dense list (sparse mode, or no embedder). */
  denseModel: string | null;
  /** The query's unit vector, for vectors kept in the object; null when it could not be embedded. */
  vector?: Float32Array | null;
  /** The dense matches the Worker got from an external vector store (Vectorize), best first. */
  matches?: readonly ScoredRow[] | null;
}

export interface Ranked {
  id: number;
  chunkId: string;
  textSourceId: string;
  start: number;
  end: number;
  score: number;
}

export interface Fused extends Ranked {
  denseRank: number | null;
  sparseRank: number | null;
  /** The reranker's score, for the head of a reranked hybrid list; null otherwise. */
  rerankScore: number | null;
}

export interface ChunkRow {
  id: number;
  chunk_id: string;
  text_source_id: string;
  start: number;
  end: number;
  segment_ids: string;
  text: string;
  /** JSON array of speaker labels, or null when the chunk's transcript was not diarized. */
  speakers: string | null;
}

export interface Candidates {
  indexedTranscriptions: number;
  /** Transcripts indexed with another model than the query's: they answer the sparse list only. */
  denseSkipped: string[];
  /** Transcripts the dense list may answer from: 0 means no query embedding was needed. */
  denseEligible: number;
  fused: Fused[];
  /** The rows of the fused list's head and first `limit`, with their highlight marks. */
  rows: Array<ChunkRow & { marks: Array<[number, number]> }>;
  candidates: { dense: number; sparse: number };
}

export interface Entry {
  text_source_id: string;
  generation: string;
  dense_model: string;
  language: string | null;
  [key: string]: SqlStorageValue;
}

/** Language filter: `en` matches transcripts in `en` and `en-GB`; `en-GB` only `en-GB`. */
function languageMatches(filter: string | undefined, language: string | null): boolean {
  if (!filter) return true;
  if (!language) return false;
  const f = filter.toLowerCase();
  const l = language.toLowerCase();
  return l === f || l.startsWith(`${f}-`);
}

/** Every indexed transcript's live generation, model and language: what a search's scope is chosen from. */
export function readEntries(sql: SqlStorage): Entry[] {
  return sql.exec<Entry>("SELECT text_source_id, generation, dense_model, language FROM entries").toArray();
}

/** The live transcripts a search may answer from, and which of them the dense list may read. */
export function searchScope(all: readonly Entry[], req: Pick<CandidateRequest, "textSourceIds" | "language" | "denseModel">) {
  const wanted = req.textSourceIds ? new Set(req.textSourceIds) : null;
  const entries = all.filter((e) => (!wanted || wanted.has(e.text_source_id)) && languageMatches(req.language, e.language));
  const denseSkipped = req.denseModel ? entries.filter((e) => e.dense_model !== req.denseModel).map((e) => e.text_source_id) : [];
  const skipped = new Set(denseSkipped);
  const denseIds = entries.filter((e) => !skipped.has(e.text_source_id)).map((e) => e.text_source_id);
  return { entries, denseSkipped, denseIds };
}

export function candidates(
  sql: SqlStorage,
  index: { entries: () => readonly Entry[]; vectors: () => VectorIndex; bm25: () => Bm25Index },
  req: CandidateRequest,
): Candidates {
  const { vectors, bm25 } = index;
  const { entries, denseSkipped, denseIds } = searchScope(index.entries(), req);
  const live = new Map(entries.map((e) => [e.text_source_id, e.generation]));
  const denseLive = new Map(denseIds.map((id) => [id, live.get(id)!]));
  const within = (c: { start: number; end: number }) =>
    (req.minStart === undefined || c.start >= req.minStart) && (req.maxEnd === undefined || c.end <= req.maxEnd);

  let dense: Ranked[] = [];
  if (req.denseModel && denseIds.length > 0) {
    if (req.vector) {
      const filter: ScanFilter = { liveGenerations: denseLive, minStart: req.minStart, maxEnd: req.maxEnd };
      dense = rankedRows(sql, vectors().topK(req.denseModel, req.vector, req.candidates, filter), () => true);
    } else if (req.matches) dense = rankedRows(sql, req.matches, (r) => denseLive.get(r.text_source_id) === r.generation && within(r));
  }
  const words = queryTerms(req.query);
  const hits =
    req.mode !== "dense" && entries.length > 0 && words.length > 0
      ? bm25().search(words, req.candidates, { liveGenerations: live, minStart: req.minStart, maxEnd: req.maxEnd })
      : [];
  // Without a dense list (nothing indexed with the query's model, or no query vector) BM25 answers alone.
  const sparse = rankedRows(sql, req.mode === "hybrid" && dense.length > 0 ? admitted(words, hits) : hits, () => true);
  const fused = fuse(req.mode, dense, sparse, req.rrfK);
  const head = req.mode === "hybrid" && req.headSize > 0 && fused.length > 1 ? fused.slice(0, req.headSize) : [];
  const shown = [...new Set([...head, ...fused.slice(0, req.limit)].map((f) => f.id))];
  return {
    indexedTranscriptions: entries.length,
    denseSkipped,
    denseEligible: denseIds.length,
    fused,
    rows: rowsWithMarks(sql, words, shown),
    candidates: { dense: dense.length, sparse: sparse.length },
  };
}

interface Placed {
  id: number;
  chunk_id: string;
  text_source_id: string;
  generation: string;
  start: number;
  end: number;
  [key: string]: SqlStorageValue;
}

/** Scored row ids joined to their chunks, in score order; rows gone or refused by `keep` drop out. */
function rankedRows(sql: SqlStorage, scored: readonly ScoredRow[], keep: (r: Placed) => boolean): Ranked[] {
  if (scored.length === 0) return [];
  const rows = sql
    .exec<Placed>(
      'SELECT id, chunk_id, text_source_id, generation, start, "end" FROM chunks WHERE id IN (SELECT value FROM json_each(?))',
      JSON.stringify(scored.map((m) => m.rowId)),
    )
    .toArray();
  const byId = new Map(rows.map((r) => [r.id, r]));
  return scored.flatMap((m) => {
    const r = byId.get(m.rowId);
    if (!r || !keep(r)) return [];
    return [{ id: r.id, chunkId: r.chunk_id, textSourceId: r.text_source_id, start: r.start, end: r.end, score: m.score }];
  });
}

/** The sparse hits that may join a hybrid fusion: those holding more than half of the query's words (sparse.ts). */
function admitted(words: readonly string[], hits: SparseHit[]): SparseHit[] {
  if (words.length < 2) return hits;
  const need = requiredCoverage(words);
  return hits.filter((h) => h.coverage >= need);
}

/** Reciprocal rank fusion in hybrid mode; one list's own order and scores otherwise. */
export function fuse(mode: SearchMode, dense: readonly Ranked[], sparse: readonly Ranked[], k: number): Fused[] {
  const all = new Map<number, Fused>();
  const add = (list: readonly Ranked[], which: "denseRank" | "sparseRank") =>
    list.forEach((r, i) => {
      const f = all.get(r.id) ?? { ...r, score: 0, denseRank: null, sparseRank: null, rerankScore: null };
      f[which] = i + 1;
      f.score += mode === "hybrid" ? 1 / (k + i + 1) : r.score;
      all.set(r.id, f);
    });
  add(dense, "denseRank");
  add(sparse, "sparseRank");
  // Ties (equal fused scores) go to the chunk the dense list ranked higher, then the earlier one.
  return [...all.values()].sort((a, b) => b.score - a.score || (a.denseRank ?? Infinity) - (b.denseRank ?? Infinity) || a.start - b.start);
}

/** The rows, each with the query's words marked (stemmed as the index stems them); a chunk no word matched has none. */
function rowsWithMarks(sql: SqlStorage, words: readonly string[], ids: readonly number[]): Candidates["rows"] {
  if (ids.length === 0) return [];
  return sql
    .exec<ChunkRow & Record<string, SqlStorageValue>>(
      `SELECT c.id, c.chunk_id, c.text_source_id, c.start, c."end", c.segment_ids, c.text, s.speakers
       FROM chunks c LEFT JOIN chunk_speakers s ON s.chunk_row_id = c.id WHERE c.id IN (SELECT value FROM json_each(?))`,
      JSON.stringify(ids),
    )
    .toArray()
    .map((r) => ({ ...r, marks: queryMarks(r.text, words) }));
}
