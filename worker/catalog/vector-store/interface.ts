/**
 * The dense half of catalog search: one collection per project (`svc_proj_{projectId}`), points
 * keyed by the chunk's D1 row id. Backends: `d1` (exact cosine over vectors kept in D1; needs no
 * account, the local default) and `vectorize` (Cloudflare Vectorize, one namespace per collection).
 *
 * A store answers candidates only; the chunk rows in D1 decide what is live (the indexer's
 * generations), so a point a cutover has not yet removed, or that an eventually consistent store
 * still returns, never reaches a result.
 */
export interface VectorPoint {
  chunkRowId: number;
  textSourceId: string;
  /** The embedding model: documents and queries are compared only within one model's space. */
  model: string;
  /** Unit length. */
  vector: Float32Array;
}

export interface VectorMatch {
  chunkRowId: number;
  /** Cosine similarity, -1..1. */
  score: number;
}

export interface VectorQuery {
  vector: Float32Array;
  model: string;
  topK: number;
  /** Only these transcripts (the search's `textSourceIds` filter). */
  textSourceIds?: readonly string[];
}

export interface VectorStore {
  /** `d1` or `vectorize`, as the search answer reports it. */
  readonly name: string;
  upsert(collection: string, points: readonly VectorPoint[]): Promise<void>;
  query(collection: string, q: VectorQuery): Promise<VectorMatch[]>;
  remove(collection: string, chunkRowIds: readonly number[]): Promise<void>;
}
