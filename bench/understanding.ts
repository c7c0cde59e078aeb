import { parseArgs } from "node:util";
import winkNLP from "wink-nlp";
import model from "wink-eng-lite-web-model";
import type { Job } from "../contracts/job";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import type { Segment } from "../contracts/transcript";
import { LocalWinkEmbeddingEngine, loadWinkModel, winkLoadStats } from "../gpu-runner/engines/embeddings/local-wink";
import { chunkSegments } from "../gpu-runner/services/indexer/chunk";
import {
  loadPassages,
  openTenant,
  processingMs,
  segmentsOf,
  sentencesOf,
  stageDurations,
  wordCount,
  type BenchTenant,
} from "./catalog-lib";
import { fmt, machineInfo, summarize, table, withFreshStack } from "./lib";

/**
 * Understanding on a 60-minute transcript, through real jobs on a fresh local stack with the local
 * engines (a real gpu-runner: local-extractive text engine, local-wink embeddings): metadata and
 * summarization wall time, and indexing throughput (chunks per second through a whole indexer job,
 * and the embedding part alone), beside two baselines measured in the same run: reading the same
 * transcript through the API, and wink-nlp's plain tokenisation of its text.
 *
 * The transcript is the labelled corpus (bench/data, CC0): its 92 passages in order, one segment per
 * sentence at 150 words a minute, about 9,000 words and 60 minutes. The bench plays the runner for
 * the transcription step only; everything after it is the product's own pipeline.
 *
 *   npx tsx bench/understanding.ts [--runs 3] [--copies 10]
 *
 * --runs: metadata and summarization jobs measured (after one warm-up job of each kind, which loads
 * the runner's models and is reported apart). --copies: 60-minute transcripts (the passages rotated,
 * so no two are the same) indexed together by one job for the throughput figure.
 */
const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "3" },
    copies: { type: "string", default: "10" },
    port: { type: "string", default: process.env["BENCH_API_PORT"] ?? "18993" },
  },
});
const RUNS = Math.max(1, Number(args.runs));
const COPIES = Math.max(1, Number(args.copies));
const { chunkMinSeconds, chunkMaxSeconds, chunkOverlapSeconds } = DEFAULT_SETTINGS.catalog;
const CHUNKING = { minSeconds: chunkMinSeconds, maxSeconds: chunkMaxSeconds, overlapSeconds: chunkOverlapSeconds };
/** Texts per embedding call, as the indexer handler batches them. */
const EMBED_BATCH = 32;

const passages = loadPassages();
/** The whole corpus as one talk, starting at passage `from` (so copies differ). */
const talk = (from: number): Segment[] =>
  segmentsOf([...passages.slice(from), ...passages.slice(0, from)].flatMap((p) => sentencesOf(p.text)));

interface Timed {
  job: Job;
  wallMs: number;
  stages: Map<string, number>;
}

async function timedJob(t: BenchTenant, serviceType: string, input: Record<string, unknown>): Promise<Timed> {
  const started = performance.now();
  const created = await t.createJob(serviceType, input);
  const job = await t.waitForJob(created.jobId, 3_600_000);
  const wallMs = performance.now() - started;
  return { job, wallMs, stages: stageDurations(await t.progress(job.jobId)) };
}

const seconds = (ms: readonly number[]) => {
  const s = summarize(ms.map((m) => m / 1000));
  return [fmt(s.p50, 2), fmt(s.min, 2), fmt(s.max, 2)];
};

await withFreshStack({ apiPort: Number(args.port), runners: 0 }, async (stack) => {
  const t = await openTenant(stack, "understanding");
  const main = talk(0);
  const copies = Array.from({ length: COPIES }, (_, i) => talk(((i + 1) * 9) % passages.length));
  const warm = segmentsOf(sentencesOf(passages[0]!.text));
  const [warmId, mainId, ...copyIds] = await t.transcribe([warm, main, ...copies]);
  const words = main.reduce((n, s) => n + wordCount(s.text), 0);
  const text = main.map((s) => s.text).join(" ");

  stack.startRunner();
  // One job of each kind on a one-passage transcript: the runner loads wink-nlp and the word vectors on first use.
  const cold = {
    metadata: await timedJob(t, "metadata", { textSourceId: warmId }),
    summarization: await timedJob(t, "summarization", { textSourceJobId: warmId }),
    indexer: await timedJob(t, "indexer", { textSourceIds: [warmId] }),
  };

  // Baselines: the same transcript read through the API, and tokenised by wink-nlp.
  const reads: number[] = [];
  for (let i = 0; i < 10; i++) {
    const s = performance.now();
    await t.api("GET", `/v1/transcriptions/${mainId}?layers=segments`);
    reads.push(performance.now() - s);
  }
  const nlp = winkNLP(model);
  nlp.readDoc("warm up the model.");
  const tokenise: number[] = [];
  let tokens = 0;
  for (let i = 0; i < 5; i++) {
    const s = performance.now();
    tokens = nlp.readDoc(text).tokens().out().length;
    tokenise.push(performance.now() - s);
  }

  const metadata: Timed[] = [];
  const summaries: Timed[] = [];
  for (let i = 0; i < RUNS; i++) {
    metadata.push(await timedJob(t, "metadata", { textSourceId: mainId }));
    summaries.push(await timedJob(t, "summarization", { textSourceJobId: mainId }));
  }
  const indexOne = await timedJob(t, "indexer", { textSourceIds: [mainId] });
  const indexMany = await timedJob(t, "indexer", { textSourceIds: copyIds });
  const chunksOf = (j: Job) => Number(j.resultSummary?.["indexedChunks"] ?? 0);

  // The embedding part alone: the same chunks, the same engine and batches, in this process.
  const engine = new LocalWinkEmbeddingEngine();
  await loadWinkModel();
  const load = winkLoadStats();
  const texts = copies.flatMap((c) => chunkSegments(c, CHUNKING).map((ch) => ch.text));
  await engine.embed(texts.slice(0, 64));
  const embedStarted = performance.now();
  for (let i = 0; i < texts.length; i += EMBED_BATCH) await engine.embed(texts.slice(i, i + EMBED_BATCH));
  const embedMs = performance.now() - embedStarted;

  const md = await t.api<{ title: string; chapters: unknown[]; keywords: string[]; categories: Array<{ name: string }> }>(
    "GET",
    `/v1/transcriptions/${mainId}/metadata`,
  );
  const sum = summaries.at(-1)!.job.resultSummary;

  console.log(machineInfo());
  console.log(`command: npx tsx bench/understanding.ts --runs ${RUNS} --copies ${COPIES}`);
  console.log(
    `transcript: the corpus as one talk, ${words} words, ${main.length} segments, ${fmt((main.at(-1)?.end ?? 0) / 60, 1)} minutes; ` +
      `one real gpu-runner (concurrency 1), local-extractive text engine, local-wink embeddings; wall = create to completed as the client sees it (polling every 100 ms)\n`,
  );
  const stage = (runs: readonly Timed[], name: string) => seconds(runs.map((r) => r.stages.get(name) ?? Number.NaN));
  console.log(
    table(
      ["measurement", "runs", "median s", "min s", "max s"],
      [
        ["baseline: GET /v1/transcriptions/{id}?layers=segments (the same transcript)", "10", ...seconds(reads)],
        [`baseline: wink-nlp readDoc + tokens of its text (${tokens} tokens, in this process)`, "5", ...seconds(tokenise)],
        ["metadata job, wall", String(RUNS), ...seconds(metadata.map((r) => r.wallMs))],
        ["  processing (startedAt to completedAt)", String(RUNS), ...seconds(metadata.map((r) => processingMs(r.job)))],
        ["  stage load_transcription", String(RUNS), ...stage(metadata, "load_transcription")],
        ["  stage generate_metadata", String(RUNS), ...stage(metadata, "generate_metadata")],
        ["  stage save_metadata", String(RUNS), ...stage(metadata, "save_metadata")],
        ["summarization job, wall", String(RUNS), ...seconds(summaries.map((r) => r.wallMs))],
        ["  processing (startedAt to completedAt)", String(RUNS), ...seconds(summaries.map((r) => processingMs(r.job)))],
        ["  stage synthesis", String(RUNS), ...stage(summaries, "synthesis")],
        [`indexer job, one 60-minute transcript (${chunksOf(indexOne.job)} chunks), wall`, "1", ...seconds([indexOne.wallMs])],
        ["first job of each kind in the fresh runner (one-passage transcript): metadata", "1", ...seconds([cold.metadata.wallMs])],
        ["  summarization", "1", ...seconds([cold.summarization.wallMs])],
        ["  indexer", "1", ...seconds([cold.indexer.wallMs])],
      ],
    ),
  );

  const n = chunksOf(indexMany.job);
  const perSecond = (ms: number) => fmt(n / (ms / 1000), 0);
  const manyStages = ["fetch_transcription", "chunk", "embed_sparse", "embed_dense", "index", "cutover"].map((s) => [
    `  stage ${s} (summed over transcripts)`,
    fmt((indexMany.stages.get(s) ?? Number.NaN) / 1000, 2),
    perSecond(indexMany.stages.get(s) ?? Number.NaN),
  ]);
  console.log(
    `\nindexing throughput: one indexer job over ${COPIES} 60-minute transcripts, ${n} chunks (${fmt(summarize(texts.map(wordCount)).mean, 0)} words of text per chunk, the 10 s overlap included)`,
  );
  console.log(
    table(
      ["measurement", "s", "chunks/s"],
      [
        ["indexer job, wall (create to completed)", fmt(indexMany.wallMs / 1000, 2), perSecond(indexMany.wallMs)],
        ["  processing (startedAt to completedAt)", fmt(processingMs(indexMany.job) / 1000, 2), perSecond(processingMs(indexMany.job))],
        ...manyStages,
        [
          `embedding alone: LocalWinkEmbeddingEngine, batches of ${EMBED_BATCH}, in this process (load ${fmt((load?.loadMs ?? Number.NaN) / 1000, 1)} s not counted)`,
          fmt(embedMs / 1000, 2),
          fmt(texts.length / (embedMs / 1000), 0),
        ],
      ],
    ),
  );
  console.log(
    `\nwhat the jobs made: metadata "${md.title}", ${md.chapters.length} chapters, ${md.keywords.length} keywords, categories ${md.categories.map((c) => c.name).join(", ") || "none"}; ` +
      `summary "${String(sum?.["shortSynopsisPreview"] ?? "")}…"`,
  );
});
