import { execFile, execFileSync } from "node:child_process";
import { readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { parseArgs } from "node:util";
import { normalize } from "../contracts/embeddings/vectors";
import { embeddingEngineForWorker } from "../contracts/embeddings/worker-factory";
import { rerankEngineForWorker } from "../contracts/rerank/worker-factory";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import { chunkSegments } from "../gpu-runner/services/indexer/chunk";
import { startEmbeddingsServer } from "../scripts/local-engines/embeddings-server";

import { VectorIndex } from "../durable-objects/catalog/vector-index";
import { loadPassages, loadQuestions, openTenant, processingMs, seededRandom, sentencesOf, wordCount } from "./catalog-lib";
import { collectServerTiming, fmt, machineInfo, runLoad, summarize, table, withFreshStack, type LoadResult, type Phases } from "./lib";
import { CHUNKING, measureSparse, transcriptFor } from "./sparse-lib";

/**
 * Catalog search latency on 10,000 indexed chunks (100 transcripts of 100 chunks, about 90 words
 * each; `--transcripts 1000` for 100,000) on a fresh local stack, per mode, one client and N
 * concurrent clients, beside the bare Hono route on the same workerd as the ceiling (the baseline)
 * and the catalog inventory (`GET /v1/catalog/transcriptions`: authentication plus one call to the
 * project's catalog object, the fixed part of every search); then where a search's time goes.
 *
 * The transcripts are the labelled corpus's passages (bench/data) in a different seeded order each,
 * one segment per sentence at 150 words a minute, cut so the default chunking (30-60 s, 10 s
 * overlap) makes exactly 100 chunks; the bench plays the runner for their transcription step, and a
 * real gpu-runner indexes them (local-wink). Queries are the 80 labelled questions, in turn.
 *
 *   npx tsx bench/search-latency.ts [--transcripts 100] [--chunks 100] [--concurrency 8] [--requests 300] [--seconds 30]
 */
const { values: args } = parseArgs({
  options: {
    transcripts: { type: "string", default: "100" },
    chunks: { type: "string", default: "100" },
    concurrency: { type: "string", default: "8" },
    requests: { type: "string", default: "300" },
    seconds: { type: "string", default: "30" },
    port: { type: "string", default: process.env["BENCH_API_PORT"] ?? "18992" },
  },
});
const TRANSCRIPTS = Number(args.transcripts);
const CHUNKS_PER = Number(args.chunks);
const CONCURRENCY = Number(args.concurrency);
const REQUESTS = Number(args.requests);
const SECONDS = Number(args.seconds);
const LIMIT = 10;
const exec = promisify(execFile);

/** The project's catalog object's SQLite file in the local state (the one object with a `chunks` table). */
async function findCatalogFile(stateDir: string): Promise<string | null> {
  const root = path.join(stateDir, "wrangler");
  const files = (await readdir(root, { recursive: true })).filter((f) => f.endsWith(".sqlite") && f.includes("CatalogDO"));
  for (const f of files) {
    const full = path.join(root, f);
    const { stdout } = await exec("sqlite3", ["-readonly", full, "SELECT count(*) FROM sqlite_master WHERE name = 'chunks'"]);
    if (stdout.trim() === "1") return full;
  }
  return null;
}

/** SQLite's own time for one statement (sqlite3's `.timer`, "real" seconds), the median of `times` runs. */
function sqliteMs(file: string, sql: string, times = 5): number {
  const runs: number[] = [];
  for (let i = 0; i < times; i++) {
    // On stdin: sqlite3 prints no timer for a statement given as an argument.
    const stdout = execFileSync("sqlite3", ["-readonly", "-cmd", ".timer on", file], {
      input: `${sql};\n`,
      maxBuffer: 64 * 2 ** 20,
    }).toString();
    const real = /Run Time: real ([\d.]+)/.exec(stdout)?.[1];
    if (!real) throw new Error(`sqlite3 printed no timing for: ${sql}\n${stdout.slice(0, 500)}`);
    runs.push(Number(real) * 1000);
  }
  return summarize(runs).p50;
}

const sql = (s: string) => `'${s.replace(/'/g, "''")}'`;

const passages = loadPassages();
const questions = loadQuestions();
const sentencesByPassage = passages.map((p) => sentencesOf(p.text));

await withFreshStack({ apiPort: Number(args.port), runners: 0 }, async (stack) => {
  const t = await openTenant(stack, "search-latency");
  const transcripts = Array.from({ length: TRANSCRIPTS }, (_, i) => transcriptFor(i + 1, sentencesByPassage, CHUNKS_PER));
  const transcribeStarted = performance.now();
  const ids = await t.transcribe(transcripts);
  const transcribeMs = performance.now() - transcribeStarted;

  stack.startRunner();
  const indexStarted = performance.now();
  const jobs = [];
  for (let i = 0; i < ids.length; i += 50) jobs.push(await t.createJob("indexer", { textSourceIds: ids.slice(i, i + 50) }));
  const done = [];
  for (const j of jobs) done.push(await t.waitForJob(j.jobId, 3_600_000));
  const indexMs = performance.now() - indexStarted;
  const inventory = await t.api<Array<{ chunkCount: number; denseModel: string }>>("GET", "/v1/catalog/transcriptions");
  const chunks = inventory.reduce((n, e) => n + e.chunkCount, 0);
  const vectorStore = String((await t.search({ query: questions[0]!.query, mode: "dense" })).metadata["vectorStore"]);
  const chunkWords = transcripts.flatMap((segs) => chunkSegments(segs, CHUNKING).map((c) => wordCount(c.text)));
  const chunkWordStats = summarize(chunkWords);

  const base = stack.apiBaseUrl;
  const auth = { authorization: `Bearer ${t.tenant.projectKey}`, "content-type": "application/json" };
  const tookMs: number[] = [];
  // The search's phases (Server-Timing) of the run in progress, kept per endpoint at 1 client.
  let phases: Phases = new Map();
  const searchOp =
    (extra: Record<string, unknown>) =>
    async (i: number): Promise<string | null> => {
      const body = JSON.stringify({ query: questions[i % questions.length]!.query, limit: LIMIT, ...extra });
      const res = await fetch(`${base}/v1/catalog/search`, { method: "POST", headers: auth, body });
      const text = await res.text();
      if (res.status !== 200) return `${res.status} ${text.slice(0, 300)}`;
      const { metadata } = JSON.parse(text) as { metadata: { tookMs?: number; warnings?: string[] } };
      // A hybrid search whose dense half failed answers 200 from BM25 alone: that is not the search being measured.
      if (metadata.warnings?.length) return `answered with warnings: ${metadata.warnings.join("; ")}`;
      if (typeof metadata.tookMs === "number") tookMs.push(metadata.tookMs);
      collectServerTiming(res, phases);
      return null;
    };
  const bare = async () => {
    const res = await fetch(`${base}/__bench/bare`);
    await res.text();
    return res.status === 200 ? null : `${res.status}`;
  };
  const inventoryOp = async () => {
    const res = await fetch(`${base}/v1/catalog/transcriptions`, { headers: auth });
    await res.text();
    return res.status === 200 ? null : `${res.status}`;
  };
  const one = ids[0]!;
  const rerankNone = async (engine: string) => {
    await t.admin("PATCH", "/settings", { catalog: { rerankEngine: engine } });
    // Each isolate caches settings for up to SETTINGS_TTL_MS.
    await new Promise((r) => setTimeout(r, 2_500));
  };
  const endpoints: Array<{
    name: string;
    op: (i: number) => Promise<string | null>;
    before?: () => Promise<void>;
    after?: () => Promise<void>;
  }> = [
    { name: "GET /__bench/bare (ceiling)", op: bare },
    { name: `GET /v1/catalog/transcriptions (auth + one catalog-object call; ${TRANSCRIPTS} entries)`, op: inventoryOp },
    { name: "search hybrid", op: searchOp({ mode: "hybrid" }) },
    {
      name: "search hybrid without the reranker (rerankEngine none)",
      op: searchOp({ mode: "hybrid" }),
      before: () => rerankNone("none"),
      after: () => rerankNone(DEFAULT_SETTINGS.catalog.rerankEngine),
    },
    { name: "search dense", op: searchOp({ mode: "dense" }) },
    { name: "search sparse", op: searchOp({ mode: "sparse" }) },
    { name: `search dense, textSourceIds: 1 transcript (${CHUNKS_PER} vectors)`, op: searchOp({ mode: "dense", textSourceIds: [one] }) },
  ];

  const rows: string[][] = [];
  const results: Array<{ name: string; concurrency: number; r: LoadResult; took: number[]; phases: Phases }> = [];
  for (const e of endpoints) {
    await e.before?.();
    await runLoad(e.op, { requests: 20, seconds: 20, concurrency: 2 });
    for (const concurrency of [1, CONCURRENCY]) {
      tookMs.length = 0;
      phases = new Map();
      const r = await runLoad(e.op, { requests: concurrency === 1 ? Math.min(REQUESTS, 150) : REQUESTS, seconds: SECONDS, concurrency });
      results.push({ name: e.name, concurrency, r, took: [...tookMs], phases });
      console.error(
        `  ${e.name} x${concurrency}: ${r.latencies.length} ok, p50 ${fmt(summarize(r.latencies).p50)} ms, load ${os.loadavg()[0]?.toFixed(2)}`,
      );
    }
    await e.after?.();
  }
  for (const { name, concurrency, r, took } of results) {
    const s = summarize(r.latencies);
    rows.push([
      name,
      String(concurrency),
      String(r.requests),
      fmt(s.p50),
      fmt(s.p99),
      fmt(r.latencies.length / (r.wallMs / 1000), 1),
      took.length ? fmt(summarize(took).p50, 0) : "-",
      String(r.errors),
    ]);
  }

  // Where the time goes.
  const server = await startEmbeddingsServer({ port: 0 });
  const embedder = embeddingEngineForWorker({ engine: "local-wink", baseUrl: server.url });
  const reranker = rerankEngineForWorker({ engine: "local-wink", baseUrl: server.url });
  // The server loads its word vectors on the first request: on a busy machine that outlasts one request's timeout.
  for (let attempt = 1; ; attempt++) {
    try {
      await embedder.embed(["warm up"]);
      break;
    } catch (err) {
      if (attempt === 5) throw err;
    }
  }
  const embedRun = await runLoad(
    async (i) => {
      await embedder.embed([questions[i % questions.length]!.query]);
      return null;
    },
    { requests: 200, seconds: 20, concurrency: 1 },
  );
  const head = transcripts[0]!.length ? chunkSegments(transcripts[0]!, CHUNKING).slice(0, DEFAULT_SETTINGS.catalog.rerankCandidates) : [];
  const rerankRun = await runLoad(
    async (i) => {
      await reranker.rerank(
        questions[i % questions.length]!.query,
        head.map((c) => c.text),
      );
      return null;
    },
    { requests: 200, seconds: 20, concurrency: 1 },
  );
  const [queryVector] = await embedder.embed([questions[0]!.query]).catch(() => [new Float32Array(100)]);
  await server.close();
  // The object's own scan (durable-objects/catalog/vector-index.ts) over as many random unit vectors, in Node.
  const rand = seededRandom(7);
  const memory = new VectorIndex();
  for (let i = 0; i < chunks; i++)
    memory.put({
      rowId: i + 1,
      textSourceId: `txt_${i % TRANSCRIPTS}`,
      generation: "g",
      start: 0,
      end: 1,
      model: "m",
      vector: normalize(Float32Array.from({ length: 100 }, () => rand() - 0.5)),
    });
  const live = new Map(Array.from({ length: TRANSCRIPTS }, (_, i) => [`txt_${i}`, "g"]));
  const scanRun = await runLoad(
    async () => (
      memory.topK("m", queryVector ?? new Float32Array(100), DEFAULT_SETTINGS.catalog.candidates, { liveGenerations: live }),
      null
    ),
    { requests: 200, seconds: 10, concurrency: 1 },
  );

  const catalogFile = await findCatalogFile(stack.stateDir);
  const model = inventory[0]?.denseModel ?? "";
  const objectRows: string[][] = [];
  if (catalogFile) {
    const vectors = sqliteMs(catalogFile, `SELECT count(*), sum(length(vector)) FROM vectors WHERE model = ${sql(model)}`);
    objectRows.push([`reading every stored vector (${chunks} x 400 bytes): the first search after the object starts`, fmt(vectors, 1)]);
  }
  // The object's sparse work alone (durable-objects/catalog/bm25.ts), in Node over the same chunk texts,
  // beside the FTS5 queries it replaced (node:sqlite, same schema and tokenizer).
  const sparse = await measureSparse(
    transcripts.flatMap((segs, i) => chunkSegments(segs, CHUNKING).map((c) => ({ textSourceId: ids[i]!, text: c.text }))),
    questions,
    { limit: LIMIT },
  );
  const k = DEFAULT_SETTINGS.catalog.candidates;
  objectRows.push(
    [
      `BM25 top ${k} live chunks with each hit's query-word coverage, the 80 questions in turn (bm25.ts, in Node; ${sparse.fts5?.matching ?? "?"} of ${sparse.chunks} chunks match question 2)`,
      fmt(sparse.bm25Ms, 2),
    ],
    [`  the FTS5 query it replaced: bm25() top ${2 * k} (node:sqlite, same chunks)`, fmt(sparse.fts5?.topMs ?? NaN, 2)],
    [`  and the hybrid admission it replaced: one FTS5 query per query word`, fmt(sparse.fts5?.admissionMs ?? NaN, 2)],
    [`marks of the ${LIMIT} returned chunks from the tokenizer's offsets (in Node)`, fmt(sparse.marksMs, 3)],
    [`  the FTS5 highlight() query it replaced`, fmt(sparse.fts5?.highlightMs ?? NaN, 3)],
    [
      `building the index from the chunks' text: the first search after the object starts (${fmt(sparse.bytesPerChunk, 0)} bytes a chunk, ${fmt((sparse.bytesPerChunk * sparse.chunks) / 2 ** 20, 1)} MiB)`,
      fmt(sparse.buildMs, 0),
    ],
  );

  // A filtered search still fills its list from the filtered transcript.
  const filtered = await t.search({ query: questions[0]!.query, mode: "sparse", textSourceIds: [one], limit: LIMIT });
  const filteredDense = await t.search({ query: questions[0]!.query, mode: "dense", textSourceIds: [one], limit: LIMIT });

  console.log(machineInfo());
  console.log(
    `command: npx tsx bench/search-latency.ts --transcripts ${TRANSCRIPTS} --chunks ${CHUNKS_PER} --concurrency ${CONCURRENCY} --requests ${REQUESTS} --seconds ${SECONDS}`,
  );
  console.log(
    `collection: ${chunks} chunks in ${inventory.length} transcripts (chunk text ${fmt(chunkWordStats.mean, 0)} words on average, ${chunkWordStats.min}-${chunkWordStats.max}, overlap included), ${model}, vector store ${vectorStore}; ` +
      `transcripts created in ${fmt(transcribeMs / 1000, 0)} s; indexed by one real gpu-runner in ${fmt(indexMs / 1000, 0)} s ` +
      `(${fmt(chunks / (indexMs / 1000), 0)} chunks/s; jobs processing ${done.map((j) => fmt(processingMs(j) / 1000, 0)).join(" + ")} s)`,
  );
  console.log(
    `load: 1 client (up to ${Math.min(REQUESTS, 150)} requests) and ${CONCURRENCY} clients (up to ${REQUESTS} requests or ${SECONDS} s) per row, after 20 warm-up requests; limit ${LIMIT}; queries: the 80 labelled questions in turn\n`,
  );
  console.log(table(["endpoint", "clients", "requests", "p50 ms", "p99 ms", "req/s", "server tookMs p50", "errors"], rows));

  const phaseNames = [...new Set(results.flatMap((r) => [...r.phases.keys()]))];
  console.log(
    "\nServer-Timing phases of the searches at 1 client (p50 ms; waits only: the Worker's clock stands still during computation):",
  );
  console.log(
    table(
      ["endpoint", ...phaseNames],
      results
        .filter((r) => r.concurrency === 1 && r.phases.size > 0)
        .map((r) => [r.name, ...phaseNames.map((n) => (r.phases.get(n)?.length ? fmt(summarize(r.phases.get(n)!).p50, 1) : "-"))]),
    ),
  );

  console.log("\nwhere a search's time goes (p50 ms):");
  const p50 = (name: string, c = 1) => summarize(results.find((r) => r.name === name && r.concurrency === c)!.r.latencies).p50;
  const denseFull = p50("search dense");
  const denseOne = p50(endpoints.find((e) => e.name.startsWith("search dense, textSourceIds"))!.name);
  console.log(
    table(
      ["part", "p50 ms"],
      [
        [
          "query embedding: Worker client -> local engine process over loopback HTTP (measured from Node, same client code)",
          fmt(summarize(embedRun.latencies).p50, 2),
        ],
        [
          `reranking the head of ${head.length}: Worker client -> local engine process over loopback HTTP (from Node, same client code)`,
          fmt(summarize(rerankRun.latencies).p50, 2),
        ],
        [
          `the object's dense scan alone: cosine + top ${DEFAULT_SETTINGS.catalog.candidates} over ${chunks} in-memory vectors (vector-index.ts, in Node)`,
          fmt(summarize(scanRun.latencies).p50, 2),
        ],
        ...objectRows,
        [
          `dense search, whole collection (${chunks} vectors) minus one transcript (${CHUNKS_PER} vectors), through the route`,
          fmt(denseFull - denseOne, 1),
        ],
        ["  = what scanning the other vectors in the object costs per search", ""],
      ],
    ),
  );
  // Issue 23's goals, against the bare route measured in this run: hybrid p50 ≤ 2× and p99 ≤ 3× on 10,000 chunks; p50 ≤ 5× on 100,000.
  const at1 = (name: string) => summarize(results.find((r) => r.name === name && r.concurrency === 1)!.r.latencies);
  const bareS = at1(endpoints[0]!.name);
  console.log("\nagainst the bare route (1 client):");
  console.log(
    table(
      ["endpoint", "p50 ms", "p50 / bare", "p99 ms", "p99 / bare"],
      endpoints.slice(1).map((e) => {
        const x = at1(e.name);
        return [e.name, fmt(x.p50), `${fmt(x.p50 / bareS.p50, 1)}x`, fmt(x.p99), `${fmt(x.p99 / bareS.p99, 1)}x`];
      }),
    ),
  );
  console.log(
    `\nfiltered search check (textSourceIds = one transcript, "${questions[0]!.query}"): dense ${filteredDense.results.length} results, sparse ${filtered.results.length} results`,
  );
  console.log(
    `load average at end: ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const failed = results.filter((r) => r.r.errors > 0);
  if (failed.length > 0)
    throw new Error(
      `requests failed: ${failed.map((r) => `${r.name} x${r.concurrency}: ${r.r.errors} (${r.r.firstError ?? ""})`).join("; ")}`,
    );
});
