import { DatabaseSync } from "node:sqlite";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import type { Segment } from "../contracts/transcript";
import { Bm25Index, queryMarks } from "../durable-objects/catalog/bm25";
import { queryTerms, requiredCoverage } from "../durable-objects/catalog/sparse";
import { chunkSegments } from "../gpu-runner/services/indexer/chunk";
import { seededRandom, segmentsOf, type Question } from "./catalog-lib";
import { runLoad, summarize } from "./lib";

/**
 * The catalog object's sparse work measured in Node, for bench/search-latency.ts and
 * bench/sparse-index.ts: the in-memory BM25 index (durable-objects/catalog/bm25.ts) beside the SQLite
 * FTS5 queries it replaced, run in node:sqlite over the same chunks (the schema, queries and tokenizer
 * the object used: one bm25() top-K, one query per word for the hybrid admission, highlight()).
 */

const { chunkMinSeconds, chunkMaxSeconds, chunkOverlapSeconds } = DEFAULT_SETTINGS.catalog;
export const CHUNKING = { minSeconds: chunkMinSeconds, maxSeconds: chunkMaxSeconds, overlapSeconds: chunkOverlapSeconds };

/** Passages in a seeded order, sentence by sentence, cut where the default chunking closes chunk number `chunks`. */
export function transcriptFor(seed: number, sentencesByPassage: readonly string[][], chunks: number): Segment[] {
  const rand = seededRandom(seed);
  const sentences: string[] = [];
  for (;;) {
    const order = sentencesByPassage.map((s, i) => [rand(), i] as const).sort((a, b) => a[0] - b[0]);
    for (const [, i] of order) sentences.push(...sentencesByPassage[i]!);
    const made = chunkSegments(segmentsOf(sentences), CHUNKING);
    if (made.length > chunks) {
      const last = made[chunks - 1]!.segmentIds.at(-1)!;
      const segments = segmentsOf(sentences.slice(0, last + 1));
      if (chunkSegments(segments, CHUNKING).length !== chunks) throw new Error("cutting the transcript changed its chunking");
      return segments;
    }
  }
}

export interface SparseFigures {
  chunks: number;
  buildMs: number;
  bytesPerChunk: number;
  /** p50 ms per search over the questions, candidates as the route asks. */
  bm25Ms: number;
  marksMs: number;
  fts5: { topMs: number; admissionMs: number; highlightMs: number; matching: number } | null;
}

const orOf = (words: readonly string[]) => words.map((w) => `"${w}"`).join(" OR ");

/** The sparse work of one search per question, over these chunks (one generation per transcript, all live). */
export async function measureSparse(
  chunks: ReadonlyArray<{ textSourceId: string; text: string }>,
  questions: readonly Question[],
  { fts5 = true, limit = 10 } = {},
): Promise<SparseFigures> {
  const k = DEFAULT_SETTINGS.catalog.candidates;
  const rows = chunks.map((c, i) => ({ id: i + 1, text_source_id: c.textSourceId, generation: "g", start: 0, end: 1, text: c.text }));
  const buildStarted = performance.now();
  const index = Bm25Index.build(rows);
  const buildMs = performance.now() - buildStarted;
  const live = new Map(rows.map((r) => [r.text_source_id, "g"]));
  const words = questions.map((q) => queryTerms(q.query));
  const bm25Run = await runLoad(async (i) => (index.search(words[i % words.length]!, k, { liveGenerations: live }), null), {
    requests: 400,
    seconds: 20,
    concurrency: 1,
  });
  const shown = rows.slice(0, limit);
  const marksRun = await runLoad(async (i) => (shown.map((r) => queryMarks(r.text, words[i % words.length]!)), null), {
    requests: 400,
    seconds: 10,
    concurrency: 1,
  });
  const figures: SparseFigures = {
    chunks: rows.length,
    buildMs,
    bytesPerChunk: index.bytes / rows.length,
    bm25Ms: summarize(bm25Run.latencies).p50,
    marksMs: summarize(marksRun.latencies).p50,
    fts5: null,
  };
  if (!fts5) return figures;

  const db = new DatabaseSync(":memory:");
  db.exec(
    "CREATE TABLE chunks (id INTEGER PRIMARY KEY, text TEXT NOT NULL); " +
      "CREATE VIRTUAL TABLE chunks_fts USING fts5(text, content='chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
  );
  const insert = db.prepare("INSERT INTO chunks (id, text) VALUES (?, ?)");
  const insertFts = db.prepare("INSERT INTO chunks_fts (rowid, text) VALUES (?, ?)");
  db.exec("BEGIN");
  for (const r of rows) {
    insert.run(r.id, r.text);
    insertFts.run(r.id, r.text);
  }
  db.exec("COMMIT");
  const top = db.prepare("SELECT rowid AS id, rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?");
  const perWord = db.prepare("SELECT rowid AS id FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))");
  const highlight = db.prepare(
    "SELECT rowid AS id, highlight(chunks_fts, 0, '[', ']') AS h FROM chunks_fts WHERE chunks_fts MATCH ? AND rowid IN (SELECT value FROM json_each(?))",
  );
  const tops = words.map((w) => top.all(orOf(w), 2 * k) as Array<{ id: number }>);
  const topRun = await runLoad(async (i) => (top.all(orOf(words[i % words.length]!), 2 * k), null), {
    requests: 200,
    seconds: 20,
    concurrency: 1,
  });
  const admissionRun = await runLoad(
    async (i) => {
      const w = words[i % words.length]!;
      const ids = JSON.stringify(tops[i % words.length]!.slice(0, k).map((r) => r.id));
      const coverage = new Map<number, number>();
      for (const t of w)
        for (const r of perWord.all(orOf([t]), ids) as Array<{ id: number }>) coverage.set(r.id, (coverage.get(r.id) ?? 0) + 1);
      const need = requiredCoverage(w);
      return [...coverage.values()].filter((n) => n >= need).length >= 0 ? null : "unreachable";
    },
    { requests: 200, seconds: 20, concurrency: 1 },
  );
  const shownIds = JSON.stringify(shown.map((r) => r.id));
  const highlightRun = await runLoad(async (i) => (highlight.all(orOf(words[i % words.length]!), shownIds), null), {
    requests: 200,
    seconds: 10,
    concurrency: 1,
  });
  const matching = (db.prepare("SELECT count(*) AS n FROM chunks_fts WHERE chunks_fts MATCH ?").get(orOf(words[1]!)) as { n: number }).n;
  db.close();
  figures.fts5 = {
    topMs: summarize(topRun.latencies).p50,
    admissionMs: summarize(admissionRun.latencies).p50,
    highlightMs: summarize(highlightRun.latencies).p50,
    matching,
  };
  return figures;
}
