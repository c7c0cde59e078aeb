import type { VectorMatch, VectorPoint, VectorQuery, VectorStore } from "./interface";

/**
 * Cloudflare Vectorize (the production store): one index for the deployment, created with the
 * embedding model's dimensions and the cosine metric, and one namespace per project collection
 * (`svc_proj_{projectId}`), so a query can never reach another project's points. Vector ids are
 * `{collection}:{chunk row id}` (row ids are per catalog object, so the collection makes them unique in
 * the index; about 45 bytes, under Vectorize's 64); metadata carries `textSourceId` and `model`, both with metadata indexes
 * (`wrangler vectorize create-metadata-index … --propertyName textSourceId --type string`, and `model`),
 * which the query filters on. Writes are asynchronous in Vectorize; a point that is still visible after
 * its removal is dropped by the catalog object's join to its live chunks (see interface.ts).
 *
 * Limits (developers.cloudflare.com/vectorize/platform/limits): 1000 vectors per upsert from a
 * Worker, 1000 ids per delete, topK at most 100 without values or full metadata.
 */
const UPSERT_BATCH = 1000;
const DELETE_BATCH = 1000;
export const VECTORIZE_MAX_TOP_K = 100;

export class VectorizeStore implements VectorStore {
  readonly name = "vectorize";
  readonly inObject = false;

  constructor(private readonly index: VectorizeIndex) {}

  async upsert(collection: string, points: readonly VectorPoint[]): Promise<void> {
    for (let i = 0; i < points.length; i += UPSERT_BATCH) {
      await this.index.upsert(
        points.slice(i, i + UPSERT_BATCH).map((p) => ({
          id: pointId(collection, p.chunkRowId),
          values: Array.from(p.vector),
          namespace: collection,
          metadata: { textSourceId: p.textSourceId, model: p.model },
        })),
      );
    }
  }

  async query(collection: string, q: VectorQuery): Promise<VectorMatch[]> {
    const filter: VectorizeVectorMetadataFilter = { model: q.model };
    if (q.textSourceIds && q.textSourceIds.length > 0) filter["textSourceId"] = { $in: [...q.textSourceIds] };
    const res = await this.index.query(Array.from(q.vector), {
      topK: Math.min(q.topK, VECTORIZE_MAX_TOP_K),
      namespace: collection,
      returnValues: false,
      returnMetadata: "none",
      filter,
    });
    return res.matches.map((m) => ({ chunkRowId: Number(m.id.slice(collection.length + 1)), score: m.score }));
  }

  async remove(collection: string, chunkRowIds: readonly number[]): Promise<void> {
    for (let i = 0; i < chunkRowIds.length; i += DELETE_BATCH)
      await this.index.deleteByIds(chunkRowIds.slice(i, i + DELETE_BATCH).map((id) => pointId(collection, id)));
  }
}

/** A point's id in the one index: row ids repeat between projects' catalog objects, so the collection comes first. */
const pointId = (collection: string, chunkRowId: number) => `${collection}:${chunkRowId}`;
