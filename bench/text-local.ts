import { parseArgs } from "node:util";
import { docOf, longTranscript, visualChunksOver } from "../test/support/text-fixtures";
import { fmt, machineInfo, summarize, table } from "./lib";

/**
 * The local text engine (`local-extractive`) on an hour-long transcript (~9000 words, the test
 * fixtures' four talks in turn, 150 words a minute): the metadata and summary calls, and where their
 * time goes (analysis, TextRank, keyphrases, IAB, TextTiling). Baseline, measured in the same run:
 * wink-nlp reading the same text (tokens, sentences, part of speech), the floor any English
 * analysis pays. Once per process the modules load, the wink model is built and the IAB taxonomy
 * and lexicon are read and stemmed: reported apart, with the first call (JIT still cold).
 *
 *   npx tsx bench/text-local.ts [--rounds 5] [--words 9000]
 */
const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "5" }, words: { type: "string", default: "9000" } } });
const rounds = Math.max(1, Number(args.rounds) || 5);
const words = Math.max(100, Number(args.words) || 9000);

const time = async <T>(f: () => T | Promise<T>): Promise<[number, T]> => {
  const t0 = performance.now();
  const out = await f();
  return [performance.now() - t0, out];
};

console.log(machineInfo());
const [
  loadMs,
  [
    { LocalExtractiveTextEngine },
    { analyse, englishNlp },
    { chapterStarts },
    { classifyIab, classifyIabTokens },
    { rankKeywords },
    { textRank },
  ],
] = await time(() =>
  Promise.all([
    import("../gpu-runner/engines/text/local-extractive"),
    import("../gpu-runner/engines/text/analysis"),
    import("../gpu-runner/engines/text/chapters"),
    import("../gpu-runner/engines/text/iab"),
    import("../gpu-runner/engines/text/keyphrases"),
    import("../gpu-runner/engines/text/textrank"),
  ]),
);
const [modelMs] = await time(() => englishNlp());
const [lexiconMs] = await time(() => classifyIab("warm up"));
const engine = new LocalExtractiveTextEngine();
const segments = longTranscript(words);
const doc = docOf(segments);
const text = segments.map((s) => s.text).join(" ");
const chunks = visualChunksOver(doc.durationSec, 10);
const signal = new AbortController().signal;
console.log(
  `transcript: ${text.split(/\s+/).length} words, ${segments.length} segments, ${(doc.durationSec / 60).toFixed(1)} min, ${chunks.length} visual chunks`,
);

const [firstMs] = await time(() => engine.metadata({ doc, signal }));
console.log(
  `once per process: module load ${fmt(loadMs, 0)} ms, wink model ${fmt(modelMs, 0)} ms, IAB taxonomy + lexicon ${fmt(lexiconMs, 0)} ms; first metadata call ${fmt(firstMs, 0)} ms`,
);

const samples: Record<string, number[]> = {};
const record = (name: string, ms: number) => (samples[name] ??= []).push(ms);
for (let r = 0; r < rounds; r++) {
  record("baseline: wink readDoc + POS", (await time(() => englishNlp().readDoc(text).tokens().out(englishNlp().its.pos)))[0]);
  record("metadata()", (await time(() => engine.metadata({ doc, signal })))[0]);
  record("summarize()", (await time(() => engine.summarize({ doc, visualChunks: chunks, signal })))[0]);
  const [analyseMs, a] = await time(() => analyse(doc.segments, doc.language));
  record("  analysis (wink)", analyseMs);
  record("  TextRank", (await time(() => textRank(a.sentences.map((s) => s.terms))))[0]);
  record("  keyphrases (retext + compromise)", (await time(() => rankKeywords(a)))[0]);
  record("  IAB classification", (await time(() => classifyIabTokens(a.tokens)))[0]);
  record("  TextTiling chapters", (await time(() => chapterStarts(a, doc.durationSec)))[0]);
}

const rows = Object.entries(samples).map(([name, ms]) => {
  const s = summarize(ms);
  return [name, String(s.n), fmt(s.p50), fmt(s.min), fmt(s.max)];
});
console.log(table(["step", "n", "p50 ms", "min ms", "max ms"], rows));
console.log(`peak RSS ${fmt(process.resourceUsage().maxRSS / 1024, 0)} MiB`);
