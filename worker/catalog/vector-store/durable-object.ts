import type { CatalogDO } from "../../../durable-objects/catalog-do";
import { catalogObject } from "../../../durable-objects/catalog/address";
import { ApiError } from "../../errors";
import type { VectorMatch, VectorPoint, VectorQuery, VectorStore } from "./interface";

/**
 * Vectors kept in each project's catalog object (durable-objects/catalog-do.ts): exact cosine over
 * the collection, decoded in memory while the object is warm; no account, no approximation, the same
 * locally and in production. A collection is bounded by what one object keeps in memory
 * (`maxObjectVectors`); a write beyond it is refused and names the way out (VECTOR_STORE=vectorize).
 */
export class ObjectVectorStore implements VectorStore {
  readonly name = "durable-object";
  readonly inObject = true;

  constructor(private readonly ns: DurableObjectNamespace<CatalogDO>) {}

  async upsert(collection: string, points: readonly VectorPoint[]): Promise<void> {
    const answer = await catalogObject(this.ns, collection).putVectors(points);
    if ("refused" in answer) throw new ApiError("serviceNotAvailable", `catalog ${collection}: ${answer.refused}`);
  }

  async query(collection: string, q: VectorQuery): Promise<VectorMatch[]> {
    const rows = await catalogObject(this.ns, collection).queryVectors(q);
    return rows.map((r) => ({ chunkRowId: r.rowId, score: r.score }));
  }

  async remove(collection: string, chunkRowIds: readonly number[]): Promise<void> {
    await catalogObject(this.ns, collection).removeVectors(chunkRowIds);
  }
}
