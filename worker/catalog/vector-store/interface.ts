/**
 * The dense half of catalog search: one collection per project (`svc_proj_{projectId}`), points
 * keyed by the chunk's row id in the project's catalog object (durable-objects/catalog-do.ts).
 * Backends: `durable-object` (the default: the vectors live in the project's catalog object, decoded
 * in memory while it is warm, exact cosine) and `vectorize` (Cloudflare Vectorize, one namespace per
 * collection, for collections beyond what one object holds: `maxObjectVectors` in catalog-do.ts).
 *
 * A store answers candidates only; the catalog object's chunk rows and entries decide what is live
 * (the indexer's generations), so a point a cutover has not yet removed, or that an eventually
 * consistent store still returns, never reaches a result.
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
  /** `durable-object` or `vectorize`, as the search answer reports it (`info.vectorStore`). */
  readonly name: string;
  /**
   * True when the points live in the catalog object itself: a search then hands the object the query
   * vector and it ranks them in the same call as the sparse list, and a chunk's removal takes its
   * vector with it. False: the Worker queries the store and removes points after the rows.
   */
  readonly inObject: boolean;
  upsert(collection: string, points: readonly VectorPoint[]): Promise<void>;
  query(collection: string, q: VectorQuery): Promise<VectorMatch[]>;
  remove(collection: string, chunkRowIds: readonly number[]): Promise<void>;
}
