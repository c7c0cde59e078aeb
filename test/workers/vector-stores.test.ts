import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { normalize } from "../../contracts/embeddings/vectors";
import { ObjectVectorStore } from "../../worker/catalog/vector-store/durable-object";
import type { VectorStore } from "../../worker/catalog/vector-store/interface";
import { VECTORIZE_MAX_TOP_K, VectorizeStore } from "../../worker/catalog/vector-store/vectorize";

/**
 * Both vector stores behind one interface: the catalog-object store on the test's CATALOG namespace
 * (one object per collection), and the Vectorize store
 * on an in-memory stand-in of the binding's documented behaviour (namespaces, metadata filters with
 * `$eq` and `$in`, cosine scores, topK, deleteByIds), since `wrangler dev` does not emulate Vectorize.
 */

class FakeVectorize {
  readonly points = new Map<string, VectorizeVector>();
  readonly queries: VectorizeQueryOptions[] = [];

  async upsert(vectors: VectorizeVector[]): Promise<VectorizeAsyncMutation> {
    if (vectors.length > 1000) throw new Error("VECTOR_UPSERT_ERROR (code = 40007): too many vectors");
    for (const v of vectors) this.points.set(v.id, v);
    return { mutationId: String(this.points.size) };
  }

  async query(vector: number[], opts: VectorizeQueryOptions): Promise<VectorizeMatches> {
    this.queries.push(opts);
    if ((opts.topK ?? 5) > 100) throw new Error("VECTOR_QUERY_ERROR (code = 40025): topK too large");
    const filter = opts.filter ?? {};
    const passes = (m: Record<string, unknown>) =>
      Object.entries(filter).every(([k, cond]) =>
        cond !== null && typeof cond === "object" && "$in" in cond ? (cond.$in as unknown[]).includes(m[k]) : m[k] === cond,
      );
    const matches = [...this.points.values()]
      .filter((p) => p.namespace === opts.namespace && passes((p.metadata ?? {}) as Record<string, unknown>))
      .map((p) => ({ id: p.id, score: (p.values as number[]).reduce((s, x, i) => s + x * vector[i]!, 0) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, opts.topK ?? 5);
    return { matches, count: matches.length };
  }

  async deleteByIds(ids: string[]): Promise<VectorizeAsyncMutation> {
    for (const id of ids) this.points.delete(id);
    return { mutationId: "d" };
  }
}

const unit = (...xs: number[]) => normalize(xs);
const points = (model = "m") => [
  { chunkRowId: 1, textSourceId: "txt_a", model, vector: unit(1, 0, 0) },
  { chunkRowId: 2, textSourceId: "txt_a", model, vector: unit(0.8, 0.6, 0) },
  { chunkRowId: 3, textSourceId: "txt_b", model, vector: unit(0, 1, 0) },
  { chunkRowId: 4, textSourceId: "txt_b", model, vector: unit(0, 0, 1) },
];

const stores: Array<[string, () => VectorStore]> = [
  ["durable-object", () => new ObjectVectorStore(env.CATALOG)],
  ["vectorize", () => new VectorizeStore(new FakeVectorize() as unknown as VectorizeIndex)],
];

describe.each(stores)("%s vector store", (_name, make) => {
  // Collections are per test (the namespace and the fake index are shared by the file's tests).
  let n = 0;
  const collection = () => `svc_proj_vs_${_name}_${n++}`;

  it("answers the nearest points first, with cosine scores", async () => {
    const store = make();
    const c = collection();
    await store.upsert(c, points());
    const got = await store.query(c, { vector: unit(1, 0.1, 0), model: "m", topK: 3 });
    expect(got.map((m) => m.chunkRowId)).toEqual([1, 2, 3]);
    expect(got[0]!.score).toBeCloseTo(1 / Math.hypot(1, 0.1), 5);
  });

  it("keeps collections apart", async () => {
    const store = make();
    const [a, b] = [collection(), collection()];
    await store.upsert(a, points());
    expect(await store.query(b, { vector: unit(1, 0, 0), model: "m", topK: 5 })).toEqual([]);
  });

  it("compares only within the query's model", async () => {
    const store = make();
    const c = collection();
    await store.upsert(c, points("other-model"));
    expect(await store.query(c, { vector: unit(1, 0, 0), model: "m", topK: 5 })).toEqual([]);
  });

  it("filters by transcript", async () => {
    const store = make();
    const c = collection();
    await store.upsert(c, points());
    const got = await store.query(c, { vector: unit(1, 0, 0), model: "m", topK: 5, textSourceIds: ["txt_b"] });
    expect(got.map((m) => m.chunkRowId).sort()).toEqual([3, 4]);
  });

  it("an upsert of an existing point replaces it, and removed points are gone", async () => {
    const store = make();
    const c = collection();
    await store.upsert(c, points());
    await store.upsert(c, [{ chunkRowId: 4, textSourceId: "txt_b", model: "m", vector: unit(1, 0, 0) }]);
    await store.remove(c, [1]);
    const got = await store.query(c, { vector: unit(1, 0, 0), model: "m", topK: 2 });
    expect(got.map((m) => m.chunkRowId)).toEqual([4, 2]);
  });
});

describe("vectorize store", () => {
  it("asks for at most Vectorize's topK without values or metadata, in the collection's namespace", async () => {
    const fake = new FakeVectorize();
    const store = new VectorizeStore(fake as unknown as VectorizeIndex);
    await store.query("svc_proj_x", { vector: unit(1, 0, 0), model: "m", topK: 500 });
    expect(fake.queries[0]).toMatchObject({
      topK: VECTORIZE_MAX_TOP_K,
      namespace: "svc_proj_x",
      returnValues: false,
      returnMetadata: "none",
    });
  });

  it("upserts in batches Vectorize accepts", async () => {
    const fake = new FakeVectorize();
    const store = new VectorizeStore(fake as unknown as VectorizeIndex);
    const many = Array.from({ length: 2500 }, (_, i) => ({ chunkRowId: i + 1, textSourceId: "txt_a", model: "m", vector: unit(1, i, 0) }));
    await store.upsert("svc_proj_x", many);
    expect(fake.points.size).toBe(2500);
  });
});
