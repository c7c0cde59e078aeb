import { z } from "zod";
import { SpeakerLabelSchema } from "./transcript";
import { custom, Id } from "./request-fields";

/**
 * Catalog search and its index, the shapes both sides share: the chunks the indexer writes through
 * the runner calls (worker/services/indexer), the search request (`POST /v1/catalog/search`) and
 * its answer.
 */

/** One collection per project, named as the spec says. */
export function collectionName(projectId: string): string {
  return `svc_proj_${projectId}`;
}

/**
 * What ranks the sparse list: BM25 over each project's catalog Durable Object's in-memory index
 * (durable-objects/catalog/bm25.ts; porter stemming, unicode61 tokens, scored as SQLite FTS5's bm25()),
 * the same in production and on a local stack. Entries indexed before it say `d1-fts5-bm25`: same
 * terms and scores, then kept by FTS5.
 */
export const SPARSE_ENGINE = "catalog-bm25";
/** What a chunk is: consecutive whole segments, about 30–60 s, overlapping by whole segments. */
export const CHUNK_TYPE = "segment_window";

export const CHUNK_TEXT_MAX = 8000;
/** Chunks per runner call: keeps one call's body (100-dim vectors as JSON) well under a megabyte. */
export const CATALOG_WRITE_MAX_CHUNKS = 100;

export const DenseIdentitySchema = z.object({
  engine: z.string().min(1),
  model: z.string().min(1),
  dimensions: z.number().int().min(1).max(4096),
});
export type DenseIdentity = z.infer<typeof DenseIdentitySchema>;

export const IndexChunkSchema = z.object({
  position: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  segmentIds: z.array(z.number().int().nonnegative()).min(1),
  /** The speaker labels of its segments, in order of first appearance (empty: not diarized). */
  speakers: z.array(SpeakerLabelSchema).max(32).default([]),
  text: z.string().min(1).max(CHUNK_TEXT_MAX),
});
export type IndexChunk = z.infer<typeof IndexChunkSchema>;

// ---- runner calls (POST /runner/v1/tasks/{taskId}/calls/{name}) -----------------------------------

export const CatalogWriteSchema = z.object({
  textSourceId: Id("txt_"),
  dense: DenseIdentitySchema,
  chunks: z
    .array(IndexChunkSchema.extend({ vector: z.array(z.number()) }))
    .min(1)
    .max(CATALOG_WRITE_MAX_CHUNKS),
});
export type CatalogWrite = z.infer<typeof CatalogWriteSchema>;

export const CatalogCutoverSchema = z.object({
  textSourceId: Id("txt_"),
  dense: DenseIdentitySchema,
  chunkCount: z.number().int().nonnegative(),
  segmentCount: z.number().int().nonnegative(),
  transcriptRevision: z.number().int().nonnegative(),
  language: z.string().nullable(),
});
export type CatalogCutover = z.infer<typeof CatalogCutoverSchema>;
export const CatalogCutoverResultSchema = z.object({ removedStaleChunks: z.number().int().nonnegative(), reindexed: z.boolean() });

export const CatalogRollbackSchema = z.object({ textSourceIds: z.array(Id("txt_")).min(1).max(50) });
export const CatalogRollbackResultSchema = z.object({ removedChunks: z.number().int().nonnegative() });

// ---- the indexer's result -----------------------------------------------------------------------------

export const IndexedTranscriptionSchema = z.object({
  textSourceId: z.string(),
  segmentCount: z.number().int().nonnegative(),
  indexedChunks: z.number().int().nonnegative(),
  removedStaleChunks: z.number().int().nonnegative(),
  reindexed: z.boolean(),
});

export const IndexerResultSchema = z.object({
  denseEngine: z.string(),
  denseModel: z.string(),
  dimensions: z.number().int().positive(),
  sparseEngine: z.string(),
  chunkType: z.string(),
  indexedTranscriptions: z.array(IndexedTranscriptionSchema).min(1),
});
export type IndexerResult = z.infer<typeof IndexerResultSchema>;

// ---- search ------------------------------------------------------------------------------------------

export const SEARCH_LIMIT_DEFAULT = 10;
export const SEARCH_LIMIT_MAX = 50;
export const SEARCH_QUERY_MAX = 1000;
export const SEARCH_MODES = ["hybrid", "dense", "sparse"] as const;

export const SearchRequestSchema = z
  .strictObject({
    query: z
      .string({ message: "query is required" })
      .trim()
      .min(1, { message: "query must not be empty" })
      .max(SEARCH_QUERY_MAX, { message: `query must be at most ${SEARCH_QUERY_MAX} characters` }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(SEARCH_LIMIT_MAX, { message: `limit must be 1-${SEARCH_LIMIT_MAX}` })
      .default(SEARCH_LIMIT_DEFAULT),
    mode: z.enum(SEARCH_MODES).default("hybrid"),
    textSourceIds: z.array(Id("txt_")).min(1).max(50).optional(),
    language: z
      .string()
      .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, { message: "language must be a language code such as en or pt-BR" })
      .optional(),
    minStart: z.number().nonnegative().optional(),
    maxEnd: z.number().positive().optional(),
  })
  .refine((r) => r.minStart === undefined || r.maxEnd === undefined || r.minStart < r.maxEnd, {
    ...custom("invalidRange", "minStart must be less than maxEnd"),
    path: ["minStart"],
  });
export type SearchRequest = z.infer<typeof SearchRequestSchema>;

export interface SearchHit {
  rank: number;
  /**
   * Reciprocal rank fusion score in hybrid mode; cosine similarity (dense) or BM25 relevance (sparse)
   * otherwise. Results are in `rank` order: in hybrid mode the reranked head is ordered by `rerankScore`.
   */
  score: number;
  textSourceId: string;
  chunkId: string;
  start: number;
  end: number;
  segmentIds: number[];
  text: string;
  /** `text`, HTML-escaped, with the query's matched terms in `<mark>…</mark>`. */
  markedText: string;
  /** Character ranges of `text` that matched a query term (stemmed), `[start, end)`. */
  marks: Array<[number, number]>;
  /** Where the chunk ranked in each list that found it (null: not in that list's top candidates). */
  denseRank: number | null;
  sparseRank: number | null;
  /** The reranker's score (hybrid mode, the first `catalog.rerankCandidates` fused candidates; its own scale), else null. */
  rerankScore: number | null;
  /** Who speaks in the chunk, with the names the transcript has now (an extension); empty when it was not diarized. */
  speakers: Array<{ label: string; name: string | null }>;
}

export interface SearchGroup {
  textSourceId: string;
  /** Candidates of this transcript among the fused lists (before the limit). */
  total: number;
  bestScore: number;
  /** Its best hits, at most three, in rank order. */
  hits: Array<Pick<SearchHit, "chunkId" | "rank" | "score" | "start" | "end">>;
}
