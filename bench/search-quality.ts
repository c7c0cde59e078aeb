import { parseArgs } from "node:util";
import { removeStopwords } from "stopword";
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import { stemIts } from "../gpu-runner/engines/text/analysis";
import type { SearchHit } from "../contracts/catalog";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import {
  loadPassages,
  loadQuestions,
  openTenant,
  segmentsOf,
  sentencesOf,
  wordCount,
  type BenchTenant,
  type Question,
} from "./catalog-lib";
import { fmt, machineInfo, table, withFreshStack } from "./lib";

/**
 * Retrieval quality of catalog search on a labelled set (bench/data, CC0): 92 spoken-style passages
 * on 23 topics (4 per topic, so a question must tell apart passages on the same subject) and 80
 * questions whose answer passage is known, 40 worded with the passage's own terms and 40 paraphrased
 * (no content word stem shared with the answer; the script checks and prints it).
 *
 * Everything runs on a fresh local stack: each passage becomes a completed transcript (one segment
 * per sentence at 150 words a minute; the bench plays the runner for the transcription step only),
 * a real gpu-runner indexes them with an `indexer` job (local-wink embeddings, the default chunking),
 * and every question goes to `POST /v1/catalog/search` in `hybrid`, `dense` and `sparse` mode with
 * limit 50. A question's rank is the rank of the first hit from its answer's transcript.
 *
 *   npx tsx bench/search-quality.ts [--details] [--sweep]
 *
 * --details prints every question's rank per mode. --sweep adds, for diagnosis: hybrid through the
 * route with other RRF k and candidate counts (platform settings), with stop words removed from the
 * queries, and with chunks of 60-120 s (one per passage, re-indexed); and fusions played here from
 * the route's own dense and sparse lists (the route's RRF, and two ways of keeping sparse evidence
 * out of the fusion when it matches little of the query). Those figures are measured on this very
 * set: they show what moves the result and why, not a tuned default.
 */
const { values: args } = parseArgs({
  options: {
    details: { type: "boolean", default: false },
    sweep: { type: "boolean", default: false },
    port: { type: "string", default: process.env["BENCH_API_PORT"] ?? "18991" },
  },
});
const MODES = ["hybrid", "dense", "sparse"] as const;
type Mode = (typeof MODES)[number];
const LIMIT = 50;

interface Scores {
  r1: number;
  r5: number;
  mrr: number;
  n: number;
}

function scores(ranks: readonly number[]): Scores {
  const n = ranks.length || 1;
  return {
    r1: ranks.filter((r) => r <= 1).length / n,
    r5: ranks.filter((r) => r <= 5).length / n,
    mrr: ranks.reduce((s, r) => s + (Number.isFinite(r) ? 1 / r : 0), 0) / n,
    n: ranks.length,
  };
}

const nlp = winkNLP(model);
const stemCache = new Map<string, Set<string>>();
/** Content-word stems of a text (wink-nlp: Porter2, stop words out). */
function contentStems(text: string): Set<string> {
  let stems = stemCache.get(text);
  if (!stems) {
    const its = nlp.its;
    stems = new Set(
      nlp
        .readDoc(text)
        .tokens()
        .filter((tk) => tk.out(its.type) === "word" && !tk.out(its.stopWordFlag))
        .out(stemIts(nlp)),
    );
    stemCache.set(text, stems);
  }
  return stems;
}

/** The share of the query's content stems among the words the sparse index marked in a hit. */
function coverage(query: string, hit: SearchHit): number {
  const wanted = contentStems(query);
  if (wanted.size === 0) return 0;
  const marked = new Set(hit.marks.flatMap(([a, b]) => [...contentStems(hit.text.slice(a, b))]));
  return [...wanted].filter((s) => marked.has(s)).length / wanted.size;
}

/** Reciprocal rank fusion as the route does it, with a weight per list; returns the fused textSourceIds in order. */
function fuse(dense: readonly SearchHit[], sparse: readonly SearchHit[], k: number, sparseWeight = 1): string[] {
  const fused = new Map<string, { source: string; score: number; denseRank: number }>();
  const add = (list: readonly SearchHit[], weight: number, isDense: boolean) =>
    list.forEach((h, i) => {
      const f = fused.get(h.chunkId) ?? { source: h.textSourceId, score: 0, denseRank: Infinity };
      f.score += weight / (k + i + 1);
      if (isDense) f.denseRank = i + 1;
      fused.set(h.chunkId, f);
    });
  add(dense, 1, true);
  add(sparse, sparseWeight, false);
  return [...fused.values()].sort((a, b) => b.score - a.score || a.denseRank - b.denseRank).map((f) => f.source);
}

const rankOf = (sources: readonly string[], want: string | undefined) => {
  const at = sources.indexOf(want ?? "");
  return at < 0 ? Infinity : at + 1;
};

/** Every transcript through real indexer jobs (at most 50 ids each). */
async function indexAll(t: BenchTenant, ids: readonly string[]): Promise<void> {
  const jobs = [];
  for (let i = 0; i < ids.length; i += 50) jobs.push(await t.createJob("indexer", { textSourceIds: ids.slice(i, i + 50) }));
  for (const j of jobs) await t.waitForJob(j.jobId);
}

async function rankAll(t: BenchTenant, questions: readonly Question[], idOf: Map<string, string>, mode: Mode): Promise<number[]> {
  const ranks: number[] = [];
  for (const q of questions) {
    const { results, metadata } = await t.search({ query: q.query, mode, limit: LIMIT });
    // A hybrid search whose dense half failed answers from BM25 alone: not the search being measured.
    if (Array.isArray(metadata["warnings"]) && metadata["warnings"].length > 0)
      throw new Error(`search warned: ${String(metadata["warnings"])}`);
    // Hybrid is measured as the route answers it by default: fused, then its head reranked.
    if (mode === "hybrid" && metadata["reranker"] === null && results.length > 1)
      throw new Error(`hybrid search was not reranked (catalog.rerankEngine is off?)`);
    ranks.push(
      rankOf(
        results.map((h) => h.textSourceId),
        idOf.get(q.answer),
      ),
    );
  }
  return ranks;
}

const passages = loadPassages();
const questions = loadQuestions();
const textOf = new Map(passages.map((p) => [p.id, p.text]));
const shared = questions.map((q) => {
  const answer = contentStems(textOf.get(q.answer)!);
  return [...contentStems(q.query)].filter((x) => answer.has(x)).length;
});

await withFreshStack({ apiPort: Number(args.port), runners: 0 }, async (stack) => {
  const t = await openTenant(stack, "search-quality");
  const started = performance.now();
  const ids = await t.transcribe(passages.map((p) => segmentsOf(sentencesOf(p.text))));
  const idOf = new Map(passages.map((p, i) => [p.id, ids[i]!]));
  const transcribedMs = performance.now() - started;

  stack.startRunner();
  const indexStarted = performance.now();
  await indexAll(t, ids);
  const indexedMs = performance.now() - indexStarted;
  const inventory = await t.api<Array<{ chunkCount: number; denseModel: string }>>("GET", "/v1/catalog/transcriptions");
  const chunks = inventory.reduce((n, e) => n + e.chunkCount, 0);

  const ranks = new Map<Mode, number[]>();
  for (const mode of MODES) ranks.set(mode, await rankAll(t, questions, idOf, mode));

  console.log(machineInfo());
  console.log(`command: npx tsx bench/search-quality.ts${args.details ? " --details" : ""}${args.sweep ? " --sweep" : ""}`);
  const words = passages.reduce((n, p) => n + wordCount(p.text), 0);
  const topics = new Set(passages.map((p) => p.topic)).size;
  console.log(
    `corpus: ${passages.length} passages on ${topics} topics, ${words} words (bench/data, CC0), one transcript each; ` +
      `${chunks} chunks indexed by a real gpu-runner (${inventory[0]?.denseModel ?? "?"}, default chunking 30-60 s, 10 s overlap) in ${fmt(indexedMs / 1000, 1)} s ` +
      `(transcripts created in ${fmt(transcribedMs / 1000, 1)} s)`,
  );
  const kinds = ["lexical", "paraphrased"] as const;
  const stemLine = kinds.map((k) => {
    const s = shared.filter((_, i) => questions[i]!.kind === k);
    return `${k} ${s.length} (content stems shared with the answer: mean ${fmt(s.reduce((a, b) => a + b, 0) / (s.length || 1), 2)}, none for ${s.filter((x) => x === 0).length})`;
  });
  console.log(`questions: ${stemLine.join("; ")}; rank = first hit from the answer's transcript among ${LIMIT} results\n`);

  const rows: string[][] = [];
  for (const mode of MODES) {
    const all = ranks.get(mode)!;
    for (const [label, pick] of [
      ["all", () => true],
      ["lexical", (q: Question) => q.kind === "lexical"],
      ["paraphrased", (q: Question) => q.kind === "paraphrased"],
    ] as const) {
      const s = scores(all.filter((_, i) => pick(questions[i]!)));
      rows.push([mode, label, String(s.n), fmt(s.r1, 3), fmt(s.r5, 3), fmt(s.mrr, 3)]);
    }
  }
  console.log(table(["mode", "questions", "n", "recall@1", "recall@5", `MRR@${LIMIT}`], rows));

  const s = (m: Mode) => scores(ranks.get(m)!);
  const beats = (m: Mode) => s("hybrid").r5 > s(m).r5 && s("hybrid").mrr > s(m).mrr;
  console.log(
    `\nhybrid beats dense on recall@5 and MRR: ${beats("dense") ? "yes" : "NO"}; beats sparse: ${beats("sparse") ? "yes" : "NO"}` +
      ` (hybrid ${fmt(s("hybrid").r5, 3)}/${fmt(s("hybrid").mrr, 3)}, dense ${fmt(s("dense").r5, 3)}/${fmt(s("dense").mrr, 3)}, sparse ${fmt(s("sparse").r5, 3)}/${fmt(s("sparse").mrr, 3)})`,
  );
  const h = ranks.get("hybrid")!;
  const d = ranks.get("dense")!;
  const sp = ranks.get("sparse")!;
  const count = (f: (i: number) => boolean) => questions.filter((_, i) => f(i)).length;
  console.log(
    `per question: hybrid ranks the answer better than both lists ${count((i) => h[i]! < Math.min(d[i]!, sp[i]!))}, ` +
      `between them ${count((i) => h[i]! >= Math.min(d[i]!, sp[i]!) && h[i]! <= Math.max(d[i]!, sp[i]!))}, ` +
      `worse than both ${count((i) => h[i]! > Math.max(d[i]!, sp[i]!))} times`,
  );

  if (args.details) {
    console.log(
      `\n${table(
        ["question", "kind", "hybrid", "dense", "sparse"],
        questions.map((q, i) => [q.query.slice(0, 70), q.kind, String(h[i]), String(d[i]), String(sp[i])]),
      )}`,
    );
  }

  if (args.sweep) {
    console.log("\nsweep: diagnosis only, every figure below is measured on this very test set (not a tuned default)");
    const sweepRows: string[][] = [];
    const row = (variant: string, r: number[]) => {
      const byKind = (k: Question["kind"]) => scores(r.filter((_, i) => questions[i]!.kind === k));
      const all = scores(r);
      sweepRows.push([variant, fmt(all.r5, 3), fmt(all.mrr, 3), fmt(byKind("lexical").mrr, 3), fmt(byKind("paraphrased").mrr, 3)]);
    };
    // Through the route: other RRF k and candidate counts (platform settings).
    for (const candidates of [10, 20, 100]) {
      for (const rrfK of [1, 10, 60]) {
        await t.admin("PATCH", "/settings", { catalog: { rrfK, candidates } });
        row(`route: hybrid, ${candidates} candidates per list, k ${rrfK}`, await rankAll(t, questions, idOf, "hybrid"));
      }
    }
    await t.admin("PATCH", "/settings", { catalog: { rrfK: 60, candidates: 100 } });
    // Stop words out of the query (the sparse side's OR then has only content words; SIF weighs "the" at 0.001 on the dense side).
    const stripped = questions.map((q) => ({ ...q, query: removeStopwords(q.query.split(/\s+/)).join(" ") }));
    row("route: hybrid, stop words removed from the query", await rankAll(t, stripped, idOf, "hybrid"));
    // Fusion played here from the route's own dense and sparse lists (50 each, the route's limit).
    const lists: Array<{ q: Question; dense: SearchHit[]; sparse: SearchHit[] }> = [];
    for (const q of questions) {
      const [dense, sparse] = await Promise.all([
        t.search({ query: q.query, mode: "dense", limit: LIMIT }),
        t.search({ query: q.query, mode: "sparse", limit: LIMIT }),
      ]);
      lists.push({ q, dense: dense.results, sparse: sparse.results });
    }
    const played = (f: (l: (typeof lists)[number]) => string[]) => lists.map((l) => rankOf(f(l), idOf.get(l.q.answer)));
    row(
      "played: RRF k 60 over the two lists (as the route, 50 candidates)",
      played((l) => fuse(l.dense, l.sparse, 60)),
    );
    row(
      "played: sparse hits kept only when they match >= half the query's content stems",
      played((l) =>
        fuse(
          l.dense,
          l.sparse.filter((h) => coverage(l.q.query, h) >= 0.5),
          60,
        ),
      ),
    );
    row(
      "played: sparse list weighted by its best hit's share of the query's content stems",
      played((l) => fuse(l.dense, l.sparse, 60, Math.max(0, ...l.sparse.map((h) => coverage(l.q.query, h))))),
    );
    // Chunk size: every passage (at most 50 s) one chunk, re-indexed through the route's own cutover.
    await t.admin("PATCH", "/settings", { catalog: { chunkMinSeconds: 60, chunkMaxSeconds: 120 } });
    await indexAll(t, ids);
    const wholeChunks = (await t.api<Array<{ chunkCount: number }>>("GET", "/v1/catalog/transcriptions")).reduce(
      (n, e) => n + e.chunkCount,
      0,
    );
    for (const mode of MODES)
      row(`route: ${mode}, chunks 60-120 s (${wholeChunks} chunks: one per passage)`, await rankAll(t, questions, idOf, mode));
    const { chunkMinSeconds, chunkMaxSeconds } = DEFAULT_SETTINGS.catalog;
    await t.admin("PATCH", "/settings", { catalog: { chunkMinSeconds, chunkMaxSeconds } });
    console.log(table(["variant", "recall@5", "MRR", "MRR lexical", "MRR paraphrased"], sweepRows));
  }
});
