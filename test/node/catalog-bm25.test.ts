import { describe, expect, it } from "vitest";
import { loadPassages, loadQuestions, seededRandom, sentencesOf } from "../../bench/catalog-lib";
import { Bm25Index, queryMarks, type IndexedChunk, type SparseHit } from "../../durable-objects/catalog/bm25";
import { queryTerms } from "../../durable-objects/catalog/sparse";
import { Fts5Catalog } from "../support/fts5-reference";

/**
 * The catalog object's in-memory BM25 index (durable-objects/catalog/bm25.ts) ranks, scores, counts
 * query words and marks as the FTS5 table it replaced did (SQLite's own FTS5, through node:sqlite, is
 * the reference), over the bench corpus's passages cut into a few hundred chunks and the 80 labelled
 * questions.
 */

const questions = loadQuestions().map((q) => queryTerms(q.query));

/** A few hundred chunks of about a passage each: runs of the corpus's sentences in seeded orders. */
function corpusChunks(count: number, seed = 1): string[] {
  const rand = seededRandom(seed);
  const sentences = loadPassages().flatMap((p) => sentencesOf(p.text));
  return Array.from({ length: count }, () => {
    const from = Math.floor(rand() * sentences.length);
    return sentences.slice(from, from + 3 + Math.floor(rand() * 5)).join(" ");
  });
}

const chunk = (id: number, text: string, over: Partial<IndexedChunk> = {}): IndexedChunk => ({
  id,
  text_source_id: "txt_a",
  generation: "g",
  start: 0,
  end: 1,
  text,
  ...over,
});

/** The FTS5 table and the index over the same rows. */
function both(texts: readonly string[]) {
  const fts = new Fts5Catalog();
  fts.write(texts);
  return { fts, index: Bm25Index.build(fts.rows().map((r) => chunk(r.id, r.text))) };
}

/** The index's list against FTS5's: the same rows in the same order, scores equal to 1e-9 relative. */
function expectFts5Ranking(fts: Fts5Catalog, index: Bm25Index, words: readonly string[], k = 100) {
  const expected = fts.ranked(words, k);
  const got = index.search(words, k);
  expect(got.map((h) => h.rowId)).toEqual(expected.map((r) => r.id));
  got.forEach((h, i) => expect(Math.abs(h.score + expected[i]!.rank) / Math.abs(expected[i]!.rank)).toBeLessThan(1e-9));
}

describe("the catalog's BM25 index", () => {
  it("ranks and scores as FTS5's bm25() for the 80 bench questions: the same top 100, scores to 1e-9", () => {
    const { fts, index } = both(corpusChunks(400));
    for (const words of questions) expectFts5Ranking(fts, index, words);
  });

  it("counts N, document frequencies and the average length over what is left after removals, as FTS5's delete does", () => {
    const { fts, index } = both(corpusChunks(300, 2));
    const gone = fts
      .rows()
      .filter((r) => r.id % 3 === 0)
      .map((r) => r.id);
    fts.remove(gone);
    index.remove(gone);
    for (const words of questions.slice(0, 20)) expectFts5Ranking(fts, index, words);
  });

  it("ranks chunks added after it was built as FTS5 ranks them written at once", () => {
    const { fts, index } = both(corpusChunks(200, 3));
    const ids = fts.write(corpusChunks(60, 4));
    const added = new Map(fts.rows().map((r) => [r.id, r.text]));
    expect(index.add(ids.map((id) => chunk(id, added.get(id)!)))).toBe(true);
    for (const words of questions.slice(20, 40)) expectFts5Ranking(fts, index, words);
  });

  it("counts a query word that stems like another twice, as FTS5's OR of both phrases scores it", () => {
    const { fts, index } = both(["she runs daily", "running shoes", "a run and a walk", "walking"]);
    expectFts5Ranking(fts, index, ["running", "run", "walk"]);
  });

  it("orders equal scores by row id, as FTS5 does", () => {
    const { fts, index } = both(Array.from({ length: 12 }, (_, i) => (i % 2 ? "same words here" : `other text ${i}`)));
    const got = index.search(["words"], 100);
    expect(new Set(got.map((h) => h.score)).size).toBe(1);
    expectFts5Ranking(fts, index, ["words"]);
  });

  it("counts how many of the query's words each hit holds, as one FTS5 query per word would", () => {
    const { fts, index } = both(corpusChunks(300, 5));
    for (const words of questions.slice(0, 40)) {
      const holding = words.map((w) => fts.holding(w));
      for (const hit of index.search(words, 100)) expect(hit.coverage).toBe(holding.filter((s) => s.has(hit.rowId)).length);
    }
  });

  it("marks the tokens highlight() marked", () => {
    const { fts } = both(corpusChunks(120, 6));
    for (const words of questions) {
      const hits = fts.ranked(words, 10);
      for (const { id } of hits) expect(queryMarks(fts.rows().find((r) => r.id === id)!.text, words)).toEqual(fts.marks(words, id));
    }
  });

  it("answers only a transcript's live generation inside the time range, still filling its k", () => {
    const rows = [
      chunk(1, "bread bread bread", { generation: "old" }),
      chunk(2, "bread bread", { text_source_id: "txt_b" }),
      chunk(3, "bread", { start: 50, end: 60 }),
      chunk(4, "bread and butter"),
      chunk(5, "bread rolls"),
      chunk(6, "crumbs"),
    ];
    const index = Bm25Index.build(rows);
    const ids = (hits: SparseHit[]) => hits.map((h) => h.rowId).sort();
    expect(ids(index.search(["bread"], 2, { liveGenerations: new Map([["txt_a", "g"]]), maxEnd: 10 }))).toEqual([4, 5]);
    expect(ids(index.search(["bread"], 10, { liveGenerations: new Map([["txt_a", "g"]]), minStart: 40 }))).toEqual([3]);
    expect(ids(index.search(["bread"], 10, { liveGenerations: new Map([["txt_a", "old"]]) }))).toEqual([1]);
    expect(index.search(["bread"], 10, { liveGenerations: new Map() })).toEqual([]);
  });

  it("refuses chunks whose row ids do not come after the index's last", () => {
    const index = Bm25Index.build([chunk(5, "bread")]);
    expect(index.add([chunk(3, "toast")])).toBe(false);
    expect(index.has(3)).toBe(false);
  });

  it("asks to be rebuilt once the chunks added or removed since it was built outgrow a quarter of it", () => {
    const built = Array.from({ length: 10_000 }, (_, i) => chunk(i + 1, `word${i % 50}`));
    const index = Bm25Index.build(built);
    index.add(Array.from({ length: 2_000 }, (_, i) => chunk(20_000 + i, "new words")));
    expect(index.stale).toBe(false);
    index.remove(built.slice(0, 600).map((c) => c.id));
    expect(index.stale).toBe(true);
  });
});
