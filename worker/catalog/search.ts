import type { SearchGroup, SearchHit, SearchRequest } from "../../contracts/catalog";
import { collectionName, SPARSE_ENGINE } from "../../contracts/catalog";
import type { EmbeddingEngine } from "../../contracts/embeddings/interface";
import type { RerankEngine } from "../../contracts/rerank/interface";
import type { CandidateRequest, ChunkRow, Fused } from "../../durable-objects/catalog/candidates";
import { markedHtml } from "../../durable-objects/catalog/sparse";
import type { CatalogDO } from "../../durable-objects/catalog-do";
import { catalogObject } from "../../durable-objects/catalog/address";
import type { VectorStore } from "./vector-store/interface";

/**
 * Catalog search over one project's collection, which lives in the project's catalog object
 * (durable-objects/catalog-do.ts). Dense: the query embedded here, in the Worker, by the same engine
 * and model as the chunks, nearest chunks by exact cosine over the object's in-memory vectors (or from
 * Vectorize). Sparse: BM25 over the object's own in-memory index, so its statistics are the project's.
 * Hybrid (the default) fuses the two rankings by reciprocal rank fusion, score = Σ 1 / (k + rank) over
 * the lists a chunk appears in (Cormack, Clarke and Büttcher, SIGIR 2009), which needs no score
 * calibration between cosine and BM25. RRF reads ranks only, so in hybrid mode a reranker then reads
 * the query and each of the fused list's first `rerankCandidates` chunks together and orders that head
 * by its scores (contracts/rerank); a reranker that fails leaves the fused order and the answer says
 * why. Dense and sparse modes answer their own list unchanged. Only live chunks (the generation each
 * transcript's catalog entry names) are ever answered.
 *
 * One round trip to the object per search when it keeps the vectors: the query is embedded first (the
 * embeddings server or Workers AI is reached from the Worker, as before, and the object stays a store),
 * then the object ranks, fuses and answers the rows to show. With Vectorize the Worker first asks the
 * object which transcripts may answer (in parallel with the embedding), queries Vectorize with them,
 * and hands the matches to the object.
 */

/** A dense search whose query could not be embedded (the embeddings server failed). */
export class DenseUnavailable extends Error {}

export interface SearchDeps {
  catalog: DurableObjectNamespace<CatalogDO>;
  store: VectorStore;
  /** The query embedder; null when the Worker has none configured (dense and hybrid then answer 503). */
  embedder: EmbeddingEngine | null;
  candidates: number;
  rrfK: number;
  /** Hybrid mode's reranker; null: the fused order stands. */
  reranker?: RerankEngine | null;
  rerankCandidates?: number;
  /**
   * The speakers' current names of the transcripts named, by transcript and label (the project's
   * transcript rows); asked only when an answered chunk has speakers. Absent: hits show labels only.
   */
  speakerNames?: (textSourceIds: readonly string[]) => Promise<Map<string, Map<string, string | null>>>;
  /** Times a phase for the answer's `Server-Timing` header (embed, object, rerank); absent: untimed. */
  time?: <T>(phase: string, work: () => Promise<T>) => Promise<T>;
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

export async function searchCatalog(projectId: string, req: SearchRequest, deps: SearchDeps): Promise<SearchAnswer> {
  const collection = collectionName(projectId);
  const catalog = catalogObject(deps.catalog, collection);
  const embedder = req.mode !== "sparse" ? deps.embedder : null;
  const reranker = req.mode === "hybrid" ? (deps.reranker ?? null) : null;
  const base: CandidateRequest = {
    query: req.query,
    mode: req.mode,
    limit: req.limit,
    ...(req.textSourceIds ? { textSourceIds: req.textSourceIds } : {}),
    ...(req.language ? { language: req.language } : {}),
    ...(req.minStart !== undefined ? { minStart: req.minStart } : {}),
    ...(req.maxEnd !== undefined ? { maxEnd: req.maxEnd } : {}),
    candidates: deps.candidates,
    rrfK: deps.rrfK,
    headSize: reranker ? (deps.rerankCandidates ?? 20) : 0,
    denseModel: embedder?.model ?? null,
  };

  const time = deps.time ?? (<T>(_: string, work: () => Promise<T>) => work());
  let embedError: string | null = null;
  const embedding = embedder
    ? time("embed", () => embedder.embed([req.query])).then(
        (v) => v[0] ?? null,
        (err: unknown) => {
          embedError = err instanceof Error ? err.message : String(err);
          return null;
        },
      )
    : Promise.resolve(null);
  let found;
  if (deps.store.inObject) {
    const vector = await embedding;
    found = await time("object", () => catalog.search({ ...base, vector }));
  } else {
    const [scope, vector] = await Promise.all([embedder ? catalog.scope(base) : null, embedding]);
    const matches =
      vector && embedder && scope && scope.denseIds.length > 0
        ? await deps.store.query(collection, {
            vector,
            model: embedder.model,
            topK: deps.candidates,
            // A filtered search names the transcripts it may answer from, so the store filters before its limit.
            ...(req.textSourceIds || req.language || scope.denseIds.length < scope.entries ? { textSourceIds: scope.denseIds } : {}),
          })
        : [];
    found = await time("object", () => catalog.search({ ...base, matches: matches.map((m) => ({ rowId: m.chunkRowId, score: m.score })) }));
  }
  // An embedding failure matters only where a dense list could have answered; the embeddings server
  // is the deployment's, not the caller's: a hybrid search answers from BM25 and says so.
  const denseFailed = found.denseEligible > 0 ? embedError : null;
  if (denseFailed !== null && req.mode === "dense") throw new DenseUnavailable(denseFailed);

  const fused = found.fused;
  const head = reranker && fused.length > 1 ? fused.slice(0, base.headSize) : [];
  // RPC answers tuples as plain arrays: the marks are pairs again here.
  const rows = new Map(found.rows.map((r) => [r.id, { ...r, marks: r.marks.map(([a, b]) => [a!, b!] as [number, number]) }]));
  // The names are read beside the reranker's call: a diarized corpus costs a search no extra wait.
  const diarized = [...new Set(found.rows.filter((r) => r.speakers !== null).map((r) => r.text_source_id))];
  const [reranked, names] = await Promise.all([
    time("rerank", () => rerankHead(req.query, reranker, head, rows)),
    diarized.length > 0 && deps.speakerNames ? deps.speakerNames(diarized) : Promise.resolve(new Map<string, Map<string, string | null>>()),
  ]);
  const ordered = reranked.order ? [...reranked.order, ...fused.slice(head.length)] : fused;
  const top = ordered.slice(0, req.limit);
  const results: SearchHit[] = top.flatMap((f, i) => {
    const row = rows.get(f.id);
    if (!row) return [];
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
        markedText: markedHtml(row.text, row.marks),
        marks: row.marks,
        denseRank: f.denseRank,
        sparseRank: f.sparseRank,
        rerankScore: f.rerankScore === null ? null : round(f.rerankScore),
        speakers: ((row.speakers === null ? [] : JSON.parse(row.speakers)) as string[]).map((label) => ({
          label,
          name: names.get(row.text_source_id)?.get(label) ?? null,
        })),
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
      indexedTranscriptions: found.indexedTranscriptions,
      denseSkipped: found.denseSkipped,
      denseFailed: req.mode === "hybrid" ? denseFailed : null,
      reranker: reranked.order && reranker ? { engine: reranker.engine, model: reranker.model, candidates: head.length } : null,
      rerankFailed: reranked.failed,
      candidates: found.candidates,
    },
  };
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
