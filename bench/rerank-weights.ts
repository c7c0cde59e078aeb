import { parseArgs } from "node:util";
import { cosine } from "../contracts/embeddings/vectors";
import { LocalWinkEmbeddingEngine } from "../gpu-runner/engines/embeddings/local-wink";
import { LocalWinkRerankEngine, POOLED_WEIGHT } from "../gpu-runner/engines/rerank/local-wink";
import { chunkSegments } from "../gpu-runner/services/indexer/chunk";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import { loadPassages, loadQuestions, segmentsOf, sentencesOf, type Question } from "./catalog-lib";
import { machineInfo, table } from "./lib";

/**
 * How the local reranker's one weight was chosen, reproducibly and without the stack: the catalog
 * bench's passages chunked as the indexer chunks them (same settings), the dense order of the local
 * embeddings (what the route's dense list ranks), and the first `rerankCandidates` of it reordered by
 * the local reranker at each pooled-cosine weight. Scores as bench/search-quality.ts counts them
 * (rank = first chunk of the answer's transcript).
 *
 * The weight is chosen by two-fold cross-validation over topics: each half of the 23 topics picks the
 * weight with the best recall@5 (then MRR) on its own questions, and is scored on the other half's.
 * The held-out figures are the honest ones; the full grid is printed for diagnosis.
 *
 *   npx tsx bench/rerank-weights.ts [--weights 0.2,0.3,0.4,0.5,0.6,0.7]
 */
const { values: args } = parseArgs({ options: { weights: { type: "string", default: "0.2,0.3,0.4,0.5,0.6,0.7" } } });
const weights = args.weights.split(",").map(Number);
const { chunkMinSeconds, chunkMaxSeconds, chunkOverlapSeconds, rerankCandidates } = DEFAULT_SETTINGS.catalog;

const passages = loadPassages();
const questions = loadQuestions();
const chunks = passages.flatMap((p) =>
  chunkSegments(segmentsOf(sentencesOf(p.text)), {
    minSeconds: chunkMinSeconds,
    maxSeconds: chunkMaxSeconds,
    overlapSeconds: chunkOverlapSeconds,
  }).map((c) => ({ passage: p.id, text: c.text })),
);
const embedder = new LocalWinkEmbeddingEngine();
const chunkVectors = await embedder.embed(chunks.map((c) => c.text));
const queryVectors = await embedder.embed(questions.map((q) => q.query));

const firstRank = (order: readonly { passage: string }[], answer: string) => {
  const i = order.findIndex((c) => c.passage === answer);
  return i < 0 ? Infinity : i + 1;
};

/** Ranks per question: the dense order, then the dense head reranked at each weight. */
const runs = new Map<string, number[]>([["dense", []]]);
for (const w of weights) runs.set(`reranked, pooled weight ${w}`, []);
for (const [qi, q] of questions.entries()) {
  const dense = chunks.map((c, i) => ({ ...c, s: cosine(queryVectors[qi]!, chunkVectors[i]!) })).sort((a, b) => b.s - a.s);
  runs.get("dense")!.push(firstRank(dense, q.answer));
  const head = dense.slice(0, rerankCandidates);
  for (const w of weights) {
    const scores = await new LocalWinkRerankEngine({ pooledWeight: w }).rerank(
      q.query,
      head.map((c) => c.text),
    );
    const order = head.map((c, i) => ({ ...c, r: scores[i]! })).sort((a, b) => b.r - a.r);
    runs.get(`reranked, pooled weight ${w}`)!.push(firstRank([...order, ...dense.slice(rerankCandidates)], q.answer));
  }
}

const recall = (r: readonly number[], k: number) => r.filter((x) => x <= k).length / r.length;
const mrr = (r: readonly number[]) => r.reduce((s, x) => s + 1 / x, 0) / r.length;
const f3 = (x: number) => x.toFixed(3);

console.log(machineInfo());
console.log(`command: npx tsx bench/rerank-weights.ts --weights ${args.weights}`);
console.log(
  `${chunks.length} chunks, ${questions.length} questions, head of ${rerankCandidates} reranked (default POOLED_WEIGHT ${POOLED_WEIGHT})\n`,
);
console.log(
  table(
    ["order", "recall@1", "recall@5", "MRR"],
    [...runs].map(([name, r]) => [name, f3(recall(r, 1)), f3(recall(r, 5)), f3(mrr(r))]),
  ),
);

const topics = [...new Set(passages.map((p) => p.topic))];
const topicOf = new Map(passages.map((p) => [p.id, p.topic]));
const foldOf = (q: Question) => topics.indexOf(topicOf.get(q.answer)!) % 2;
const heldOut = new Array<number>(questions.length);
const folds: string[][] = [];
for (const fold of [0, 1]) {
  const pick = (f: (q: Question) => boolean) => questions.flatMap((q, i) => (f(q) ? [i] : []));
  const train = pick((q) => foldOf(q) !== fold);
  const test = pick((q) => foldOf(q) === fold);
  const on = (name: string, idx: number[]) => idx.map((i) => runs.get(name)![i]!);
  const best = weights
    .map((w) => `reranked, pooled weight ${w}`)
    .sort((a, b) => recall(on(b, train), 5) - recall(on(a, train), 5) || mrr(on(b, train)) - mrr(on(a, train)))[0]!;
  for (const i of test) heldOut[i] = runs.get(best)![i]!;
  const t = on(best, test);
  const d = on("dense", test);
  folds.push([
    `topics ${fold === 0 ? "even" : "odd"}`,
    best.replace("reranked, ", ""),
    `${f3(recall(t, 5))} (dense ${f3(recall(d, 5))})`,
    `${f3(mrr(t))} (dense ${f3(mrr(d))})`,
  ]);
}
console.log(`\ntwo-fold cross-validation over topics: each fold's weight chosen on the other topics, scored on its own\n`);
console.log(table(["held-out fold", "weight chosen on the other", "recall@5", "MRR"], folds));
const dense = runs.get("dense")!;
console.log(
  `\nheld out, all questions: recall@1 ${f3(recall(heldOut, 1))}, recall@5 ${f3(recall(heldOut, 5))}, MRR ${f3(mrr(heldOut))} ` +
    `(dense: ${f3(recall(dense, 1))}, ${f3(recall(dense, 5))}, ${f3(mrr(dense))})`,
);
