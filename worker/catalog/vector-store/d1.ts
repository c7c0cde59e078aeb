import { bytesToVector, vectorToBytes } from "../../../contracts/embeddings/vectors";
import type { VectorMatch, VectorPoint, VectorQuery, VectorStore } from "./interface";

/**
 * Exact cosine search over unit vectors kept in D1 (`catalog_vectors`, little-endian float32
 * blobs): no account, no approximation. Every query reads the collection's vectors of the query's
 * model and keeps the best `topK` (a bounded insertion into a sorted list: topK is small).
 * Figures for 10,000 chunks are in the README (bench/search-latency.ts).
 */
const WRITE_BATCH = 50;
const DELETE_BATCH = 90;

export class D1VectorStore implements VectorStore {
  readonly name = "d1";

  constructor(private readonly db: D1Database) {}

  async upsert(collection: string, points: readonly VectorPoint[]): Promise<void> {
    for (let i = 0; i < points.length; i += WRITE_BATCH) {
      await this.db.batch(
        points
          .slice(i, i + WRITE_BATCH)
          .map((p) =>
            this.db
              .prepare(
                "INSERT INTO catalog_vectors (chunk_row_id, collection, text_source_id, model, vector) VALUES (?, ?, ?, ?, ?) " +
                  "ON CONFLICT(chunk_row_id) DO UPDATE SET collection = excluded.collection, text_source_id = excluded.text_source_id, model = excluded.model, vector = excluded.vector",
              )
              .bind(p.chunkRowId, collection, p.textSourceId, p.model, vectorToBytes(p.vector)),
          ),
      );
    }
  }

  async query(collection: string, q: VectorQuery): Promise<VectorMatch[]> {
    const filter = q.textSourceIds && q.textSourceIds.length > 0 ? " AND text_source_id IN (SELECT value FROM json_each(?))" : "";
    const rows = await this.db
      .prepare(`SELECT chunk_row_id, vector FROM catalog_vectors WHERE collection = ? AND model = ?${filter}`)
      .bind(collection, q.model, ...(q.textSourceIds && q.textSourceIds.length > 0 ? [JSON.stringify(q.textSourceIds)] : []))
      .raw<[number, ArrayBuffer]>();
    const best: VectorMatch[] = [];
    for (const [chunkRowId, blob] of rows) {
      const v = bytesToVector(blob);
      if (v.length !== q.vector.length) continue;
      let dot = 0;
      for (let i = 0; i < v.length; i++) dot += v[i]! * q.vector[i]!;
      if (best.length === q.topK && dot <= best[best.length - 1]!.score) continue;
      let at = best.length;
      while (at > 0 && best[at - 1]!.score < dot) at--;
      best.splice(at, 0, { chunkRowId, score: dot });
      if (best.length > q.topK) best.pop();
    }
    return best;
  }

  async remove(collection: string, chunkRowIds: readonly number[]): Promise<void> {
    for (let i = 0; i < chunkRowIds.length; i += DELETE_BATCH) {
      const ids = chunkRowIds.slice(i, i + DELETE_BATCH);
      await this.db
        .prepare(`DELETE FROM catalog_vectors WHERE collection = ? AND chunk_row_id IN (${ids.map(() => "?").join(",")})`)
        .bind(collection, ...ids)
        .run();
    }
  }
}
