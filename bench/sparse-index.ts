import { parseArgs } from "node:util";
import { chunkSegments } from "../gpu-runner/services/indexer/chunk";
import { loadPassages, loadQuestions, sentencesOf } from "./catalog-lib";
import { fmt, machineInfo, table } from "./lib";
import { CHUNKING, measureSparse, transcriptFor } from "./sparse-lib";

/**
 * The catalog object's sparse index alone, in Node (no stack): build time, memory, and a search's
 * BM25 top-100 and marks, beside the SQLite FTS5 queries it replaced (node:sqlite, same chunks) — at
 * the collection sizes of bench/search-latency.ts (100 chunks of about 90 words per transcript).
 *
 *   npx tsx bench/sparse-index.ts [--transcripts 100,1000]
 */
const { values: args } = parseArgs({ options: { transcripts: { type: "string", default: "100,1000" } } });
const passages = loadPassages();
const questions = loadQuestions();
const sentencesByPassage = passages.map((p) => sentencesOf(p.text));

const rows: string[][] = [];
for (const transcripts of args.transcripts.split(",").map(Number)) {
  const chunks = Array.from({ length: transcripts }, (_, i) =>
    chunkSegments(transcriptFor(i + 1, sentencesByPassage, 100), CHUNKING).map((c) => ({ textSourceId: `txt_${i}`, text: c.text })),
  ).flat();
  const f = await measureSparse(chunks, questions);
  rows.push([
    String(f.chunks),
    fmt(f.buildMs, 0),
    fmt(f.bytesPerChunk, 0),
    fmt((f.bytesPerChunk * f.chunks) / 2 ** 20, 1),
    fmt(f.bm25Ms, 2),
    fmt(f.marksMs, 3),
    f.fts5 ? fmt(f.fts5.topMs, 2) : "-",
    f.fts5 ? fmt(f.fts5.admissionMs, 2) : "-",
    f.fts5 ? fmt(f.fts5.highlightMs, 3) : "-",
    f.fts5 ? `${f.fts5.matching}` : "-",
  ]);
  console.error(`  ${f.chunks} chunks done`);
}
console.log(machineInfo());
console.log(
  `command: npx tsx bench/sparse-index.ts --transcripts ${args.transcripts}; queries: the 80 labelled questions in turn, top 100 live chunks\n`,
);
console.log(
  table(
    [
      "chunks",
      "index build ms",
      "bytes/chunk",
      "index MiB",
      "BM25 top-100 + coverage p50 ms",
      "marks of 10 rows p50 ms",
      "FTS5 bm25() top-200 p50 ms",
      "FTS5 admission (a query per word) p50 ms",
      "FTS5 highlight() of 10 rows p50 ms",
      "chunks matching question 2",
    ],
    rows,
  ),
);
