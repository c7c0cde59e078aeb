import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SearchGroup, SearchHit } from "../../contracts/catalog";
import type { LeasedTask } from "../../contracts/runner-protocol";
import { LOCAL_RERANK_ENGINE, LOCAL_RERANK_MODEL } from "../../contracts/rerank/interface";
import {
  LEXICAL_FAIL_WORD,
  LEXICAL_MODEL,
  LEXICAL_RERANK_FAIL_WORD,
  lexicalEmbedding,
  lexicalRerankScore,
} from "../support/fakes/lexical-vectors";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, patchSettings, waitForStatus } from "./helpers/jobs";
import { createTenant, projectKey, type Tenant } from "./helpers/tenant";
import { completedTranscript, diarizedTranscript, usage } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";
import { DENSE, index, storedChunks, writeTranscript } from "./helpers/catalog";

/**
 * The indexer and catalog search through the Worker, with the test playing the runner over the
 * real protocol (transcript, catalog.write, catalog.cutover, catalog.rollback) and a stand-in
 * embedding model on loopback (test/support/fakes/lexical-embeddings.ts) that the Worker also
 * embeds queries with.
 */

const BREAD = ["Knead the dough for ten minutes.", "Let the bread rise overnight.", "Bake it in a hot oven."];
const FOOTBALL = ["The striker scored a late goal.", "The referee showed a red card.", "Fans sang in the stadium."];

let t: Tenant;
let other: Tenant;
let bread: string;
let football: string;

beforeAll(async () => {
  await patchSettings({ catalog: { embeddingEngine: "openai-compatible", embeddingModel: LEXICAL_MODEL } });
  t = await createTenant();
  other = await createTenant();
  bread = (await completedTranscript(t, BREAD)).textSourceId;
  football = (await completedTranscript(t, FOOTBALL, "en-GB")).textSourceId;
  await index(t, [bread, football]);
});
afterAll(async () => {
  await patchSettings({ catalog: { embeddingEngine: "local-wink", embeddingModel: null } });
});
afterEach(async () => {
  await cancelUnfinished(t);
});

interface SearchAnswer {
  results: SearchHit[];
  groups: SearchGroup[];
}
/** Runs `fn` with these platform settings, then puts the catalog's defaults for them back. */
async function withSettings<T>(patch: { catalog: Record<string, unknown> }, fn: () => Promise<T>): Promise<T> {
  await patchSettings(patch);
  try {
    return await fn();
  } finally {
    await patchSettings({ catalog: { rerankEngine: "local-wink", rerankCandidates: 20 } });
  }
}

async function search(body: Record<string, unknown>, tenant = t) {
  return call<SearchAnswer>("POST", "/v1/catalog/search", { key: tenant.projectKey, body });
}
const texts = (hits: readonly SearchHit[]) => hits.map((h) => h.text);

describe("indexer jobs", () => {
  it("charge one indexing credit per distinct id and store the ids deduplicated", async () => {
    const before = (await usage(t))["indexing_credits"] ?? 0;
    const job = await createJob(t, "indexer", { textSourceIds: [bread, bread, football] });
    expect(job.input["textSourceIds"]).toEqual([bread, football]);
    expect((await usage(t))["indexing_credits"]).toBe(before + 2);
  });

  it("complete with the spec's resultSummary", async () => {
    const job = await index(t, [bread]);
    expect(job.resultSummary).toMatchObject({
      textSourceId: bread,
      collection: `svc_proj_${t.projectId}`,
      indexedChunks: 3,
      denseEngine: "openai-compatible",
      sparseEngine: "catalog-bm25",
      chunkType: "segment_window",
      indexedTranscriptions: [{ textSourceId: bread, segmentCount: 3, indexedChunks: 3, removedStaleChunks: 3, reindexed: true }],
    });
  });
});

describe("the indexer's catalog calls and result are checked against the job", () => {
  /** An indexer job for `bread` only, leased by the test's runner. */
  async function leasedIndexer(): Promise<LeasedTask> {
    const job = await createJob(t, "indexer", { textSourceIds: [bread] });
    return fakeRunner.leaseWhenReady(job.jobId, ["indexer"]);
  }
  const chunk = { position: 0, start: 0, end: 2, segmentIds: [0], text: "forged", vector: lexicalEmbedding("forged") };
  const chunkCount = (id: string) => storedChunks(t, id);

  it("catalog.write naming a transcript the job does not name is refused with 422 and writes nothing", async () => {
    const task = await leasedIndexer();
    const before = await chunkCount(football);
    const res = await fakeRunner.call(task, "catalog.write", { textSourceId: football, dense: DENSE, chunks: [chunk] });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.textSourceId", issue: `notNamedByJob:${football}` }]);
    expect(await chunkCount(football)).toBe(before);
  });

  it("catalog.cutover naming a transcript the job does not name is refused with 422", async () => {
    const task = await leasedIndexer();
    const res = await fakeRunner.call(task, "catalog.cutover", {
      textSourceId: football,
      dense: DENSE,
      chunkCount: 0,
      segmentCount: 0,
      transcriptRevision: 1,
      language: "en",
    });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.textSourceId", issue: `notNamedByJob:${football}` }]);
  });

  it("catalog.rollback naming a transcript the job does not name is refused with 422", async () => {
    const task = await leasedIndexer();
    const res = await fakeRunner.call(task, "catalog.rollback", { textSourceIds: [bread, football] });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "body.textSourceIds.1", issue: `notNamedByJob:${football}` }]);
  });

  it("a result naming a transcript the job does not name is refused with 422", async () => {
    const task = await leasedIndexer();
    const res = await fakeRunner.complete(task, {
      denseEngine: DENSE.engine,
      denseModel: DENSE.model,
      dimensions: DENSE.dimensions,
      sparseEngine: "catalog-bm25",
      chunkType: "segment_window",
      indexedTranscriptions: [{ textSourceId: football, segmentCount: 3, indexedChunks: 3, removedStaleChunks: 0, reindexed: true }],
    });
    expectError(res, 422, "protocolError");
    expect(res.body.error?.details).toEqual([{ path: "result.indexedTranscriptions.0.textSourceId", issue: `notNamedByJob:${football}` }]);
  });
});

describe("POST /v1/catalog/search", () => {
  it("sparse: BM25 finds the chunk with the query's words, marked (stemmed as FTS5 stems them)", async () => {
    const res = await search({ query: "baking bread", mode: "sparse" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const top = res.body.data.results[0]!;
    expect(top).toMatchObject({ textSourceId: bread, text: "Let the bread rise overnight.", sparseRank: 1, denseRank: null });
    expect(top.markedText).toBe("Let the <mark>bread</mark> rise overnight.");
    expect(texts(res.body.data.results)).toContain("Bake it in a hot oven.");
  });

  it("dense: the nearest chunks by the catalog's embedding model", async () => {
    const res = await search({ query: "red card from the referee", mode: "dense" });
    expect(res.body.data.results[0]).toMatchObject({
      textSourceId: football,
      text: "The referee showed a red card.",
      denseRank: 1,
      sparseRank: null,
    });
  });

  it("hybrid (the default) fuses both rankings by reciprocal rank fusion", async () => {
    const res = await search({ query: "the referee card" });
    const top = res.body.data.results[0]!;
    expect(top.text).toBe("The referee showed a red card.");
    expect(top.denseRank).toBe(1);
    expect(top.sparseRank).toBe(1);
    expect(top.score).toBeCloseTo(2 / 61, 6);
  });

  it("hybrid: the reranker orders the fused list's first rerankCandidates by its scores, ties and the rest in fused order", async () => {
    const query = "bake the bread in a hot oven";
    const fused = await withSettings({ catalog: { rerankEngine: "none" } }, () => search({ query }));
    const reranked = await withSettings({ catalog: { rerankCandidates: 3 } }, () => search({ query }));
    const fusedTexts = texts(fused.body.data.results);
    const head = fusedTexts
      .slice(0, 3)
      // The route answers scores to six decimals.
      .map((text, at) => ({ text, at, score: Math.round(lexicalRerankScore(query, text) * 1e6) / 1e6 }))
      .sort((a, b) => b.score - a.score || a.at - b.at);
    expect(texts(reranked.body.data.results)).toEqual([...head.map((h) => h.text), ...fusedTexts.slice(3)]);
    expect(reranked.body.data.results.map((h) => h.rerankScore)).toEqual([
      ...head.map((h) => h.score),
      ...fusedTexts.slice(3).map(() => null),
    ]);
    expect(reranked.body.data.results.map((h) => h.rank)).toEqual(fusedTexts.map((_, i) => i + 1));
  });

  it("hybrid: the metadata names the reranker and how many candidates it read", async () => {
    const res = await search({ query: "bread oven" });
    expect(res.body.metadata?.["reranker"]).toEqual({
      engine: LOCAL_RERANK_ENGINE,
      model: LOCAL_RERANK_MODEL,
      candidates: res.body.data.results.length,
    });
    expect(res.body.metadata?.["rerankFailed"]).toBeNull();
  });

  it.each(["dense", "sparse"])("%s mode answers its own list's order, without reranking", async (mode) => {
    const res = await search({ query: "bread oven", mode });
    expect(res.body.data.results.length).toBeGreaterThan(0);
    expect(res.body.data.results.every((h) => h.rerankScore === null)).toBe(true);
    expect(res.body.metadata?.["reranker"]).toBeNull();
  });

  it("when the reranker fails, a hybrid search answers in fused order and says so", async () => {
    const query = `bread oven ${LEXICAL_RERANK_FAIL_WORD}`;
    const fused = await withSettings({ catalog: { rerankEngine: "none" } }, () => search({ query }));
    const res = await search({ query });
    expect(res.status).toBe(200);
    expect(texts(res.body.data.results)).toEqual(texts(fused.body.data.results));
    expect(res.body.data.results.every((h) => h.rerankScore === null)).toBe(true);
    expect(String(res.body.metadata?.["rerankFailed"])).toContain("503");
    expect(String(res.body.metadata?.["warnings"])).toContain("reranking unavailable");
  });

  it("results carry times and segment ids, and groups one entry per transcript with its total", async () => {
    const res = await search({ query: "the", limit: 2, mode: "sparse" });
    expect(res.body.data.results).toHaveLength(2);
    for (const hit of res.body.data.results) {
      expect(hit.end).toBeGreaterThan(hit.start);
      expect(hit.segmentIds).toHaveLength(1);
    }
    const totals = Object.fromEntries(res.body.data.groups.map((g) => [g.textSourceId, g.total]));
    expect(totals[bread]).toBeGreaterThan(0);
    expect(totals[football]).toBeGreaterThan(0);
  });

  it("filters by transcript, language and time", async () => {
    const only = await search({ query: "the", mode: "sparse", textSourceIds: [football] });
    expect(new Set(only.body.data.results.map((h) => h.textSourceId))).toEqual(new Set([football]));
    const gb = await search({ query: "the", mode: "sparse", language: "en-GB" });
    expect(new Set(gb.body.data.results.map((h) => h.textSourceId))).toEqual(new Set([football]));
    const en = await search({ query: "the", mode: "sparse", language: "en" });
    expect(new Set(en.body.data.results.map((h) => h.textSourceId))).toEqual(new Set([bread, football]));
    const late = await search({ query: "the", mode: "sparse", minStart: 2 });
    expect(late.body.data.results.every((h) => h.start >= 2)).toBe(true);
    const early = await search({ query: "the", mode: "sparse", maxEnd: 2 });
    expect(early.body.data.results.every((h) => h.end <= 2)).toBe(true);
  });

  it("never answers another project's chunks", async () => {
    const res = await search({ query: "referee bread oven" }, other);
    expect(res.status).toBe(200);
    expect(res.body.data.results).toEqual([]);
  });

  it("needs the ai:search permission", async () => {
    const key = await projectKey(t, ["job:read"]);
    const res = await call("POST", "/v1/catalog/search", { key: key.secret, body: { query: "bread" } });
    expectError(res, 403, "forbidden");
  });

  it.each([
    ["an empty query", { query: "  " }, "query"],
    ["a limit above 50", { query: "bread", limit: 51 }, "limit"],
    ["an unknown mode", { query: "bread", mode: "fuzzy" }, "mode"],
    ["minStart not before maxEnd", { query: "bread", minStart: 10, maxEnd: 5 }, "minStart"],
    ["a display-name language", { query: "bread", language: "English" }, "language"],
  ])("rejects %s with a validation error on its path", async (_rule, body, path) => {
    const res = await search(body);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details?.[0]?.path).toBe(path);
  });

  it("when the embeddings server fails, a hybrid search answers from BM25 and says so; a dense search is refused", async () => {
    const hybrid = await search({ query: `bread ${LEXICAL_FAIL_WORD}` });
    expect(hybrid.status).toBe(200);
    expect(texts(hybrid.body.data.results)).toContain("Let the bread rise overnight.");
    expect(hybrid.body.data.results.every((h) => h.denseRank === null)).toBe(true);
    expect(String(hybrid.body.metadata?.["warnings"])).toContain("dense retrieval unavailable");
    const dense = await search({ query: `bread ${LEXICAL_FAIL_WORD}`, mode: "dense" });
    expectError(dense, 422, "serviceNotAvailable");
    expect(dense.body.error?.details?.[0]).toEqual({ path: "mode", issue: "denseUnavailable" });
  });

  it("a transcript indexed with another embedding model answers the sparse list only, and is named", async () => {
    await patchSettings({ catalog: { embeddingEngine: "openai-compatible", embeddingModel: "another-model" } });
    try {
      const res = await search({ query: "bread" });
      expect(res.status).toBe(200);
      expect(res.body.metadata?.["denseSkipped"]).toEqual(expect.arrayContaining([bread, football]));
      expect(texts(res.body.data.results)).toContain("Let the bread rise overnight.");
    } finally {
      await patchSettings({ catalog: { embeddingEngine: "openai-compatible", embeddingModel: LEXICAL_MODEL } });
    }
  });

  it("stop words are not searched: a question finds the chunk with its content words first", async () => {
    const res = await search({ query: "how long does the bread rise?", mode: "sparse" });
    expect(res.body.data.results[0]?.text).toBe("Let the bread rise overnight.");
    expect(texts(res.body.data.results)).not.toContain("Fans sang in the stadium.");
  });

  it("hybrid: a sparse hit matching fewer than half the query's words does not join the fusion", async () => {
    const query = "referee stadium goal bread";
    const sparse = await search({ query, mode: "sparse" });
    expect(sparse.body.data.results.length).toBeGreaterThan(0);
    const hybrid = await search({ query });
    expect(hybrid.body.data.results.every((h) => h.sparseRank === null)).toBe(true);
  });

  it("a query of punctuation only finds nothing, without an error", async () => {
    const res = await search({ query: "?!", mode: "sparse" });
    expect(res.status).toBe(200);
    expect(res.body.data.results).toEqual([]);
  });

  it("FTS5 syntax in a query is read as words", async () => {
    const res = await search({ query: 'bread" OR NEAR(*', mode: "sparse" });
    expect(res.status).toBe(200);
    expect(texts(res.body.data.results)).toContain("Let the bread rise overnight.");
  });
});

describe("speakers in search hits", () => {
  it("a hit from a diarized transcript says who speaks in it, with the name the transcript has now", async () => {
    const own = await createTenant({ plan: "enterprise" });
    const { textSourceId } = await diarizedTranscript(own, ["SPEAKER_00", "SPEAKER_01"]);
    await index(own, [textSourceId]);
    await call("PATCH", `/v1/transcriptions/${textSourceId}/speakers`, {
      key: own.projectKey,
      body: { revision: 1, names: { SPEAKER_01: "Ada" } },
    });
    const res = await search({ query: "segment 1", mode: "sparse" }, own);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const bySegment = new Map(res.body.data.results.map((h) => [h.segmentIds[0], h.speakers]));
    expect(bySegment.get(0)).toEqual([{ label: "SPEAKER_00", name: null }]);
    expect(bySegment.get(1)).toEqual([{ label: "SPEAKER_01", name: "Ada" }]);
  });

  it("a hit from a transcript that was not diarized has no speakers", async () => {
    const res = await search({ query: "dough", mode: "sparse" });
    expect(res.body.data.results[0]?.speakers).toEqual([]);
  });
});

describe("re-indexing", () => {
  it("replaces a transcript's chunks: no duplicates, the stale ones removed and counted", async () => {
    const id = (await completedTranscript(t, ["Sourdough needs a starter.", "Feed the starter daily."])).textSourceId;
    await index(t, [id]);
    const again = await index(t, [id]);
    expect(again.resultSummary?.["indexedTranscriptions"]).toEqual([
      { textSourceId: id, segmentCount: 2, indexedChunks: 2, removedStaleChunks: 2, reindexed: true },
    ]);
    const res = await search({ query: "starter", mode: "sparse", textSourceIds: [id] });
    expect(texts(res.body.data.results).sort()).toEqual(["Feed the starter daily.", "Sourdough needs a starter."]);
  });

  it("an edit is searchable after a re-index", async () => {
    const id = (await completedTranscript(t, ["The old wording stays here.", "Another line."])).textSourceId;
    await index(t, [id]);
    const edit = await call("PATCH", `/v1/transcriptions/${id}/segments`, {
      key: t.projectKey,
      body: { revision: 1, segments: [{ id: 0, text: "The corrected wording with quinoa." }] },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(texts((await search({ query: "quinoa", mode: "sparse" })).body.data.results)).toEqual([]);
    await index(t, [id]);
    expect(texts((await search({ query: "quinoa", mode: "sparse" })).body.data.results)).toEqual(["The corrected wording with quinoa."]);
  });

  it("a failure mid-index is rolled back: the job fails with index_rollback and the previous index still answers", async () => {
    const id = (await completedTranscript(t, ["Pasta water should be salty."])).textSourceId;
    await index(t, [id]);
    const job = await createJob(t, "indexer", { textSourceIds: [id] });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["indexer"]);
    await writeTranscript(task, id);
    // Written but not cut over: searches still see only the live generation (one hit, not two).
    expect((await search({ query: "pasta", mode: "sparse" })).body.data.results).toHaveLength(1);
    const rolled = await fakeRunner.call<{ removedChunks: number }>(task, "catalog.rollback", { textSourceIds: [id] });
    expect(rolled.body.data.removedChunks).toBe(1);
    await fakeRunner.fail(task, "index_rollback", false, "indexing failed and was rolled back");
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.code).toBe("index_rollback");
    const after = await search({ query: "pasta", mode: "sparse" });
    expect(texts(after.body.data.results)).toEqual(["Pasta water should be salty."]);
    expect(await storedChunks(t, id)).toBe(1);
  });

  it("a job that ends without completing leaves none of its chunks behind", async () => {
    const id = (await completedTranscript(t, ["Rice wants rinsing."])).textSourceId;
    const job = await createJob(t, "indexer", { textSourceIds: [id] });
    const task = await fakeRunner.leaseWhenReady(job.jobId, ["indexer"]);
    await writeTranscript(task, id);
    await fakeRunner.fail(task, "processing_failed", false, "runner gave up");
    await waitForStatus(t, job.jobId, "failed");
    expect(await storedChunks(t, id)).toBe(0);
  });
});

describe("the catalog inventory", () => {
  it("lists indexed transcripts with chunk counts, engines and models", async () => {
    const res = await call<Array<Record<string, unknown>>>("GET", "/v1/catalog/transcriptions", { key: t.projectKey });
    expect(res.status).toBe(200);
    const entry = res.body.data.find((e) => e["textSourceId"] === football);
    expect(entry).toMatchObject({
      chunkCount: 3,
      denseEngine: "openai-compatible",
      denseModel: LEXICAL_MODEL,
      dimensions: 64,
      sparseEngine: "catalog-bm25",
    });
    expect((await call<unknown[]>("GET", "/v1/catalog/transcriptions", { key: other.projectKey })).body.data).toEqual([]);
  });

  it("DELETE drops a transcript from the index at once; another project's or an unindexed one is 404", async () => {
    const id = (await completedTranscript(t, ["Lentils cook fast."])).textSourceId;
    await index(t, [id]);
    expectError(await call("DELETE", `/v1/catalog/transcriptions/${id}`, { key: other.projectKey }), 404, "notFound");
    const res = await call<{ removedChunks: number }>("DELETE", `/v1/catalog/transcriptions/${id}`, { key: t.projectKey });
    expect(res.body.data.removedChunks).toBe(1);
    const after = await search({ query: "lentils" });
    expect(after.body.data.results.filter((h) => h.textSourceId === id)).toEqual([]);
    expectError(await call("DELETE", `/v1/catalog/transcriptions/${id}`, { key: t.projectKey }), 404, "notFound");
  });
});
