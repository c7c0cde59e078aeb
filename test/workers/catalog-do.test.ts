import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { normalize } from "../../contracts/embeddings/vectors";
import type { CandidateRequest } from "../../durable-objects/catalog/candidates";
import { CATALOG_SCHEMA } from "../../durable-objects/catalog/schema";
import type { CatalogDO, EntryInput } from "../../durable-objects/catalog-do";

/**
 * The catalog object of one project (durable-objects/catalog-do.ts) through its RPC methods: BM25
 * reads that project's chunks only, a search answers the live generation, and the in-memory sparse
 * index and vectors follow every write and removal.
 */

let n = 0;
const object = () => env.CATALOG.get(env.CATALOG.idFromName(`svc_proj_catalog_do_${n++}`));
const MODEL = "m";
const unit = (...xs: number[]) => normalize(xs);

const entry = (chunkCount: number): EntryInput => ({
  jobId: "job_x",
  chunkCount,
  segmentCount: chunkCount,
  transcriptRevision: 1,
  language: "en",
  denseEngine: "test",
  denseModel: MODEL,
  dimensions: 3,
  sparseEngine: "d1-fts5-bm25",
  indexedAt: new Date().toISOString(),
});

/** Writes `texts` (with their vectors) as one generation of a transcript and, unless told not to, cuts it over. */
async function index(
  stub: DurableObjectStub<CatalogDO>,
  textSourceId: string,
  generation: string,
  chunks: Array<{ text: string; vector: Float32Array }>,
  { cut = true } = {},
) {
  const ids = await stub.writeChunks(
    textSourceId,
    generation,
    chunks.map((c, position) => ({ position, start: position * 2, end: position * 2 + 2, segmentIds: [position], text: c.text })),
  );
  await stub.putVectors(ids.map(({ position, id }) => ({ chunkRowId: id, textSourceId, model: MODEL, vector: chunks[position]!.vector })));
  if (cut) await stub.cutover(textSourceId, generation, entry(chunks.length));
  return ids.map((r) => r.id);
}

const request = (over: Partial<CandidateRequest>): CandidateRequest => ({
  query: "bread",
  mode: "sparse",
  limit: 10,
  candidates: 100,
  rrfK: 60,
  headSize: 0,
  denseModel: null,
  ...over,
});

describe("the catalog object", () => {
  it("ranks its sparse list by BM25 over stemmed words: 'breads' finds 'bread'", async () => {
    const stub = object();
    const [id] = await index(stub, "txt_a", "g.0", [
      { text: "Knead the bread dough.", vector: unit(1, 0, 0) },
      { text: "The oven is hot.", vector: unit(0, 1, 0) },
    ]);
    const found = await stub.search(request({ query: "breads" }));
    expect(found.fused.map((f) => f.id)).toEqual([id]);
    expect(found.fused[0]!.score).toBeGreaterThan(0);
  });

  it("keeps its sparse index in step with writes and removals after the index is built", async () => {
    const stub = object();
    await index(stub, "txt_a", "g.0", [{ text: "sourdough starter", vector: unit(1, 0, 0) }]);
    expect((await stub.search(request({ query: "sourdough" }))).fused).toHaveLength(1);
    const second = await index(stub, "txt_a", "g.1", [{ text: "rye crumb", vector: unit(0, 1, 0) }]);
    expect((await stub.search(request({ query: "sourdough" }))).fused).toEqual([]);
    expect((await stub.search(request({ query: "rye" }))).fused.map((f) => f.id)).toEqual(second);
    await stub.drop("txt_a");
    expect((await stub.search(request({ query: "rye" }))).fused).toEqual([]);
  });

  it("rebuilds its sparse index once the chunks written and removed since outgrow it, answering as before", async () => {
    const stub = object();
    await index(stub, "txt_a", "g.0", [{ text: "sourdough starter", vector: unit(1, 0, 0) }]);
    expect((await stub.search(request({ query: "sourdough" }))).fused).toHaveLength(1);
    // More than the 2,048 chunks an index takes in before it is rebuilt (bm25.ts).
    const many = Array.from({ length: 2_100 }, (_, i) => ({ text: `rye loaf ${i}${i === 7 ? " sourdough" : ""}`, vector: unit(1, i, 0) }));
    const ids = await index(stub, "txt_a", "g.1", many);
    const found = await stub.search(request({ query: "sourdough" }));
    expect(found.fused.map((f) => f.id)).toEqual([ids[7]]);
  });

  it("drops the FTS5 index and triggers earlier objects kept, and writes chunks without them", async () => {
    const stub = object();
    await index(stub, "txt_a", "g.0", [{ text: "bread", vector: unit(1, 0, 0) }]);
    const left = await runInDurableObject(stub, (_, state) => {
      const sql = state.storage.sql;
      // What the schema created before the in-memory index.
      sql.exec(
        `CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')`,
      );
      sql.exec(
        "CREATE TRIGGER chunks_fts_insert AFTER INSERT ON chunks BEGIN INSERT INTO chunks_fts(rowid, text) VALUES (new.id, new.text); END",
      );
      sql.exec(
        "CREATE TRIGGER chunks_fts_delete AFTER DELETE ON chunks BEGIN INSERT INTO chunks_fts(chunks_fts, rowid, text) VALUES ('delete', old.id, old.text); END",
      );
      for (const statement of CATALOG_SCHEMA) sql.exec(statement);
      return sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE name LIKE 'chunks_fts%'").toArray();
    });
    expect(left).toEqual([]);
    await index(stub, "txt_b", "g.0", [{ text: "more bread", vector: unit(0, 1, 0) }]);
    expect((await stub.search(request({}))).fused).toHaveLength(2);
  });

  it("scores BM25 from its own project's chunks: another project's chunks do not move them", async () => {
    const a = object();
    const b = object();
    await index(a, "txt_a", "g.0", [
      { text: "Bread rises overnight.", vector: unit(1, 0, 0) },
      { text: "The oven is hot.", vector: unit(0, 1, 0) },
    ]);
    const before = (await a.search(request({}))).fused.map((f) => f.score);
    await index(
      b,
      "txt_b",
      "g.0",
      Array.from({ length: 20 }, (_, i) => ({ text: `bread loaf number ${i}`, vector: unit(1, i, 0) })),
    );
    const after = (await a.search(request({}))).fused.map((f) => f.score);
    expect(after).toEqual(before);
    expect((await b.search(request({}))).fused.every((f) => f.textSourceId === "txt_b")).toBe(true);
  });

  it("answers the live generation only: a written generation joins at its cutover, and the old one's vectors leave memory", async () => {
    const stub = object();
    const dense = request({ mode: "dense", denseModel: MODEL, vector: unit(1, 0, 0) });
    const first = await index(stub, "txt_a", "g.0", [{ text: "first wording", vector: unit(1, 0, 0) }]);
    expect((await stub.search(dense)).fused.map((f) => f.id)).toEqual(first);
    const second = await index(stub, "txt_a", "g.1", [{ text: "second wording", vector: unit(1, 0.1, 0) }], { cut: false });
    expect((await stub.search(dense)).fused.map((f) => f.id)).toEqual(first);
    await stub.cutover("txt_a", "g.1", entry(1));
    expect((await stub.search(dense)).fused.map((f) => f.id)).toEqual(second);
    const held = await stub.queryVectors({ vector: unit(1, 0, 0), model: MODEL, topK: 10 });
    expect(held.map((r) => r.rowId)).toEqual(second);
  });

  it("a sparse search fills its candidates with live chunks when better-matching chunks are not live", async () => {
    const stub = object();
    const live = await index(stub, "txt_a", "g.0", [
      { text: "bread once", vector: unit(1, 0, 0) },
      { text: "bread again", vector: unit(0, 1, 0) },
    ]);
    await index(
      stub,
      "txt_a",
      "g.1",
      Array.from({ length: 6 }, (_, i) => ({ text: `bread bread bread ${i}`, vector: unit(1, i, 0) })),
      { cut: false },
    );
    const found = await stub.search(request({ candidates: 2 }));
    expect(found.fused.map((f) => f.id).sort()).toEqual([...live].sort());
  });

  it("a rollback removes the run's own chunks and vectors, never the live ones", async () => {
    const stub = object();
    const live = await index(stub, "txt_a", "job_a.0", [{ text: "live", vector: unit(1, 0, 0) }]);
    const pending = await index(stub, "txt_a", "job_b.0", [{ text: "pending", vector: unit(0, 1, 0) }], { cut: false });
    expect(await stub.removeGenerations(["txt_a"], { from: "job_b.0", to: "job_b.0\u0000" })).toEqual(pending);
    expect(await stub.removeGenerations(["txt_a"], { from: "job_a.", to: "job_a/" })).toEqual([]);
    const held = await stub.queryVectors({ vector: unit(1, 0, 0), model: MODEL, topK: 10 });
    expect(held.map((r) => r.rowId)).toEqual(live);
  });
});
