import type { SearchGroup, SearchHit, SearchRequest } from "../../contracts/catalog";
import { collectionName, SPARSE_ENGINE } from "../../contracts/catalog";
import type { EmbeddingEngine } from "../../contracts/embeddings/interface";
import type { RerankEngine } from "../../contracts/rerank/interface";
import {
  ftsMatchExpression,
  HIGHLIGHT_CLOSE,
  HIGHLIGHT_OPEN,
  markedHtml,
  marksFromHighlight,
  orOf,
  queryTerms,
  requiredCoverage,
} from "./sparse";
import type { VectorStore } from "./vector-store/interface";

/**
 * Catalog search over one project's collection. Dense: the query embedded by the same engine and
 * model as the chunks, nearest chunks from the vector store. Sparse: BM25 over FTS5. Hybrid (the
 * default) fuses the two rankings by reciprocal rank fusion, score = Σ 1 / (k + rank) over the lists
 * a chunk appears in (Cormack, Clarke and Büttcher, SIGIR 2009), which needs no score calibration
 * between cosine and BM25. RRF reads ranks only, so in hybrid mode a reranker then reads the query and
 * each of the fused list's first `rerankCandidates` chunks together and orders that head by its
 * scores (contracts/rerank); a reranker that fails leaves the fused order and the answer says why.
 * Dense and sparse modes answer their own list unchanged. Only live chunks (the generation each transcript's catalog entry names)
 * of the caller's project are ever answered: every candidate is joined to `catalog_entries`.
 */

/** A dense search whose query could not be embedded (the embeddings server failed). */
export class DenseUnavailable extends Error {}

export interface SearchDeps {
  db: D1Database;
  store: VectorStore;
  /** The query embedder; null when the Worker has none configured (dense and hybrid then answer 503). */
  embedder: EmbeddingEngine | null;
  candidates: number;
  rrfK: number;
  /** Hybrid mode's reranker; null: the fused order stands. */
  reranker?: RerankEngine | null;
  rerankCandidates?: number;
}

export interface SearchAnswer {
  results: SearchHit[];
  groups: SearchGroup[];
  info: {
    collection: string;
    mode: SearchRequest["mode"];
    denseEngine: string | null;
    denseModel: string | null;
    sparseEngine: string;
    vectorStore: string;
    indexedTranscriptions: number;
    /** Transcripts indexed with another embedding model than the query's: they answered the sparse list only. */
    denseSkipped: string[];
    /** Why the dense list is missing from a hybrid answer (the query could not be embedded), else null. */
    denseFailed: string | null;
    /** What reordered the head of the hybrid list, and how many candidates it read; null when nothing did. */
    reranker: { engine: string; model: string; candidates: number } | null;
    /** Why the reranker's order is missing from a hybrid answer (it failed), else null. */
    rerankFailed: string | null;
    candidates: { dense: number; sparse: number };
  };
}

interface Entry {
  text_source_id: string;
  generation: string;
  dense_model: string;
  language: string | null;
}

interface ChunkRow {
  id: number;
  chunk_id: string;
  text_source_id: string;
  start: number;
  end: number;
  segment_ids: string;
  text: string;
}

/** Language filter: `en` matches transcripts in `en` and `en-GB`; `en-GB` only `en-GB`. */
function languageMatches(filter: string | undefined, language: string | null): boolean {
  if (!filter) return true;
  if (!language) return false;
  const f = filter.toLowerCase();
  const l = language.toLowerCase();
  return l === f || l.startsWith(`${f}-`);
}

export async function searchCatalog(projectId: string, req: SearchRequest, deps: SearchDeps): Promise<SearchAnswer> {
  const collection = collectionName(projectId);
  const { results: allEntries } = await deps.db
    .prepare("SELECT text_source_id, generation, dense_model, language FROM catalog_entries WHERE project_id = ?")
    .bind(projectId)
    .all<Entry>();
  const wanted = req.textSourceIds ? new Set(req.textSourceIds) : null;
  const entries = allEntries.filter((e) => (!wanted || wanted.has(e.text_source_id)) && languageMatches(req.language, e.language));
  const live = new Map(entries.map((e) => [e.text_source_id, e.generation]));

  const useDense = req.mode !== "sparse";
  const useSparse = req.mode !== "dense";
  const embedder = useDense ? deps.embedder : null;
  const denseSkipped = embedder ? entries.filter((e) => e.dense_model !== embedder.model).map((e) => e.text_source_id) : [];
  const denseIds = entries.filter((e) => !denseSkipped.includes(e.text_source_id)).map((e) => e.text_source_id);

  const within = (c: Pick<ChunkRow, "start" | "end">) =>
    (req.minStart === undefined || c.start >= req.minStart) && (req.maxEnd === undefined || c.end <= req.maxEnd);
  const isLive = (c: Pick<ChunkRow, "text_source_id">, generation: string) => live.get(c.text_source_id) === generation;

  // A filtered search names the transcripts it may answer from, so the stores filter before their limits.
  const filtered = wanted !== null || req.language !== undefined;
  const allowed = entries.map((e) => e.text_source_id);
  let denseFailed: string | null = null;
  const embedQuery = async (): Promise<Float32Array | null> => {
    if (!embedder || denseIds.length === 0) return null;
    try {
      return (await embedder.embed([req.query]))[0] ?? null;
    } catch (err) {
      // The embeddings server is the deployment's, not the caller's: a hybrid search answers from BM25 and says so.
      const message = err instanceof Error ? err.message : String(err);
      if (req.mode === "dense") throw new DenseUnavailable(message);
      denseFailed = message;
      return null;
    }
  };
  const [dense, allSparse] = await Promise.all([
    embedQuery().then((vector) =>
      vector && embedder
        ? denseList(deps, vector, embedder.model, collection, filtered || denseSkipped.length > 0 ? denseIds : null, isLive, within)
        : [],
    ),
    useSparse && entries.length > 0 ? sparseList(req, deps, projectId, filtered ? allowed : null, isLive, within) : Promise.resolve([]),
  ]);

  // Without a dense list (nothing indexed with the query's model, or the query could not be embedded) BM25 answers alone.
  const sparse = req.mode === "hybrid" && dense.length > 0 ? await admitted(deps.db, req.query, allSparse) : allSparse;
  const fused = fuse(req.mode, dense, sparse, deps.rrfK);
  const head = req.mode === "hybrid" && deps.reranker && fused.length > 1 ? fused.slice(0, deps.rerankCandidates ?? 20) : [];
  const rows = await chunkRows(deps.db, [...new Set([...head, ...fused.slice(0, req.limit)].map((f) => f.id))]);
  const reranked = await rerankHead(req.query, deps.reranker ?? null, head, rows);
  const ordered = reranked.order ? [...reranked.order, ...fused.slice(head.length)] : fused;
  const top = ordered.slice(0, req.limit);
  const marks = await highlights(
    deps.db,
    req.query,
    top.map((f) => f.id),
  );
  const results: SearchHit[] = top.flatMap((f, i) => {
    const row = rows.get(f.id);
    if (!row) return [];
    const m = marks.get(f.id) ?? [];
    return [
      {
        rank: i + 1,
        score: round(f.score),
        textSourceId: row.text_source_id,
        chunkId: row.chunk_id,
        start: row.start,
        end: row.end,
        segmentIds: JSON.parse(row.segment_ids) as number[],
        text: row.text,
        markedText: markedHtml(row.text, m),
        marks: m,
        denseRank: f.denseRank,
        sparseRank: f.sparseRank,
        rerankScore: f.rerankScore === null ? null : round(f.rerankScore),
      },
    ];
  });

  return {
    results,
    groups: groupsOf(ordered),
    info: {
      collection,
      mode: req.mode,
      denseEngine: embedder?.engine ?? null,
      denseModel: embedder?.model ?? null,
      sparseEngine: SPARSE_ENGINE,
      vectorStore: deps.store.name,
      indexedTranscriptions: entries.length,
      denseSkipped,
      denseFailed,
      reranker:
        reranked.order && deps.reranker ? { engine: deps.reranker.engine, model: deps.reranker.model, candidates: head.length } : null,
      rerankFailed: reranked.failed,
      candidates: { dense: dense.length, sparse: sparse.length },
    },
  };
}

interface Ranked {
  id: number;
  chunkId: string;
  textSourceId: string;
  start: number;
  end: number;
  score: number;
}

async function denseList(
  deps: SearchDeps,
  vector: Float32Array,
  model: string,
  collection: string,
  textSourceIds: string[] | null,
  isLive: (c: Pick<ChunkRow, "text_source_id">, generation: string) => boolean,
  within: (c: Pick<ChunkRow, "start" | "end">) => boolean,
): Promise<Ranked[]> {
  const matches = await deps.store.query(collection, {
    vector,
    model,
    topK: deps.candidates,
    ...(textSourceIds ? { textSourceIds } : {}),
  });
  if (matches.length === 0) return [];
  const { results } = await deps.db
    .prepare("SELECT id, chunk_id, text_source_id, generation, start, end FROM catalog_chunks WHERE id IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(matches.map((m) => m.chunkRowId)))
    .all<{ id: number; chunk_id: string; text_source_id: string; generation: string; start: number; end: number }>();
  const byId = new Map(results.map((r) => [r.id, r]));
  const allowed = textSourceIds ? new Set(textSourceIds) : null;
  return matches.flatMap((m) => {
    const r = byId.get(m.chunkRowId);
    if (!r || (allowed && !allowed.has(r.text_source_id)) || !isLive(r, r.generation) || !within(r)) return [];
    return [{ id: r.id, chunkId: r.chunk_id, textSourceId: r.text_source_id, start: r.start, end: r.end, score: m.score }];
  });
}

async function sparseList(
  req: SearchRequest,
  deps: SearchDeps,
  projectId: string,
  textSourceIds: string[] | null,
  isLive: (c: Pick<ChunkRow, "text_source_id">, generation: string) => boolean,
  within: (c: Pick<ChunkRow, "start" | "end">) => boolean,
): Promise<Ranked[]> {
  const terms = queryTerms(req.query);
  const match = orOf(terms);
  if (!match) return [];
  // The entry join keeps only live generations inside SQL, so LIMIT counts live chunks.
  const { results } = await deps.db
    .prepare(
      "SELECT c.id, c.chunk_id, c.text_source_id, c.generation, c.start, c.end, bm25(catalog_chunks_fts) AS rank FROM catalog_chunks_fts " +
        "JOIN catalog_chunks c ON c.id = catalog_chunks_fts.rowid " +
        "JOIN catalog_entries e ON e.project_id = c.project_id AND e.text_source_id = c.text_source_id AND e.generation = c.generation " +
        "WHERE catalog_chunks_fts MATCH ? AND c.project_id = ? AND c.start >= ? AND c.end <= ?" +
        (textSourceIds ? " AND c.text_source_id IN (SELECT value FROM json_each(?))" : "") +
        " ORDER BY rank LIMIT ?",
    )
    .bind(
      match,
      projectId,
      req.minStart ?? 0,
      req.maxEnd ?? Number.MAX_SAFE_INTEGER,
      ...(textSourceIds ? [JSON.stringify(textSourceIds)] : []),
      deps.candidates,
    )
    .all<{ id: number; chunk_id: string; text_source_id: string; generation: string; start: number; end: number; rank: number }>();
  const hits = results
    .filter((r) => isLive(r, r.generation) && within(r))
    .map((r) => ({ id: r.id, chunkId: r.chunk_id, textSourceId: r.text_source_id, start: r.start, end: r.end, score: -r.rank }));
  return hits;
}

/** The sparse hits that may join a hybrid fusion: those holding more than half of the query's words (sparse.ts). */
async function admitted(db: D1Database, query: string, hits: Ranked[]): Promise<Ranked[]> {
  const terms = queryTerms(query);
  if (terms.length < 2 || hits.length === 0) return hits;
  const coverage = await termCoverage(
    db,
    terms,
    hits.map((h) => h.id),
  );
  const need = requiredCoverage(terms);
  return hits.filter((h) => (coverage.get(h.id) ?? 0) >= need);
}

/** How many of the query's words each chunk contains (stemmed as the index stems them): one FTS5 query per word, in one batch. */
async function termCoverage(db: D1Database, terms: readonly string[], ids: readonly number[]): Promise<Map<number, number>> {
  const json = JSON.stringify(ids);
  const answers = await db.batch<{ id: number }>(
    terms.map((t) =>
      db
        .prepare(
          "SELECT rowid AS id FROM catalog_chunks_fts WHERE catalog_chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
        )
        .bind(orOf([t]), json),
    ),
  );
  const counts = new Map<number, number>();
  for (const a of answers) for (const r of a.results) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
  return counts;
}

interface Fused extends Ranked {
  denseRank: number | null;
  sparseRank: number | null;
  /** The reranker's score, for the head of a reranked hybrid list; null otherwise. */
  rerankScore: number | null;
}

/**
 * The head ordered by the reranker's scores (ties keep the fused order), or why not. The reranker
 * belongs to the deployment, not the caller: its failure never fails the search.
 */
async function rerankHead(
  query: string,
  reranker: RerankEngine | null,
  head: Fused[],
  rows: Map<number, ChunkRow>,
): Promise<{ order: Fused[] | null; failed: string | null }> {
  if (!reranker || head.length === 0) return { order: null, failed: null };
  try {
    const scores = await reranker.rerank(
      query,
      head.map((f) => rows.get(f.id)?.text ?? ""),
    );
    const scored = head.map((f, i) => ({ ...f, rerankScore: scores[i] ?? Number.NEGATIVE_INFINITY, at: i }));
    scored.sort((a, b) => b.rerankScore - a.rerankScore || a.at - b.at);
    return { order: scored.map(({ at: _, ...f }) => f), failed: null };
  } catch (err) {
    return { order: null, failed: err instanceof Error ? err.message : String(err) };
  }
}

/** Reciprocal rank fusion in hybrid mode; one list's own order and scores otherwise. */
export function fuse(mode: SearchRequest["mode"], dense: readonly Ranked[], sparse: readonly Ranked[], k: number): Fused[] {
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

async function chunkRows(db: D1Database, ids: readonly number[]): Promise<Map<number, ChunkRow>> {
  if (ids.length === 0) return new Map();
  const { results } = await db
    .prepare(
      "SELECT id, chunk_id, text_source_id, start, end, segment_ids, text FROM catalog_chunks WHERE id IN (SELECT value FROM json_each(?))",
    )
    .bind(JSON.stringify(ids))
    .all<ChunkRow>();
  return new Map(results.map((r) => [r.id, r]));
}

/** The query's words marked in each hit (stemmed as FTS5 stems them); a chunk no word matched has none. */
async function highlights(db: D1Database, query: string, ids: readonly number[]): Promise<Map<number, Array<[number, number]>>> {
  const match = ftsMatchExpression(query);
  if (!match || ids.length === 0) return new Map();
  const { results } = await db
    .prepare(
      "SELECT rowid AS id, highlight(catalog_chunks_fts, 0, ?, ?) AS h FROM catalog_chunks_fts " +
        "WHERE catalog_chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
    )
    .bind(HIGHLIGHT_OPEN, HIGHLIGHT_CLOSE, match, JSON.stringify(ids))
    .all<{ id: number; h: string }>();
  return new Map(results.map((r) => [r.id, marksFromHighlight(r.h).marks]));
}

/** One group per transcript over every candidate (not only the returned page), in the order of each one's best rank. */
function groupsOf(fused: readonly Fused[]): SearchGroup[] {
  const groups = new Map<string, SearchGroup>();
  fused.forEach((f, i) => {
    const g = groups.get(f.textSourceId) ?? { textSourceId: f.textSourceId, total: 0, bestScore: round(f.score), hits: [] };
    g.total++;
    if (g.hits.length < 3) g.hits.push({ chunkId: f.chunkId, rank: i + 1, score: round(f.score), start: f.start, end: f.end });
    groups.set(f.textSourceId, g);
  });
  return [...groups.values()];
}

const round = (x: number) => Math.round(x * 1e6) / 1e6;
