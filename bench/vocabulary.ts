import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { Word } from "../contracts/transcript";
import {
  DEFAULT_VOCABULARY_BOOST_LOG10,
  LocalPocketSphinxEngine,
  pocketSphinxConfigFromEnv,
} from "../gpu-runner/engines/speech/local-pocketsphinx";
import type { VocabularyUse } from "../gpu-runner/engines/speech/vocabulary";
import { VOCABULARY_TERMS, vocabularySet, type SetVoice } from "../test/support/vocabulary-set";
import { fmt, machineInfo, table } from "./lib";
import { addScores, emptyScore, scoreSentence, wordsBySentence, type Score } from "./vocabulary-lib";

/**
 * Vocabulary benchmark: the local PocketSphinx engine on the vocabulary set (test/support/
 * vocabulary-set.ts: 48 sentences naming 60 people, places and products, Festival and eSpeak NG
 * voices) without a vocabulary (the baseline) and with the set's terms as the job's vocabulary, in
 * the same run: term recall, WER of the other words, overall WER, wall time.
 *
 *   npx tsx bench/vocabulary.ts [--boost=-4] [--boost=-3 --boost=-5 …]
 *
 * Each `--boost` (log10 unigram probability of a term) is one "with vocabulary" row; the default
 * is the engine's (DEFAULT_VOCABULARY_BOOST_LOG10). Decoding is deterministic, so one run of each
 * is enough for the accuracy figures; wall time is the engine's (vocabulary files and decoding).
 */

interface Run {
  label: string;
  words: Word[];
  wallMs: number;
  use?: VocabularyUse;
}

const pct = (n: number, d: number) => (d ? `${fmt((100 * n) / d)} %` : "-");

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { boost: { type: "string", multiple: true } } });
  const boosts = (values.boost ?? [String(DEFAULT_VOCABULARY_BOOST_LOG10)]).map(Number);
  console.log(machineInfo());
  const set = await vocabularySet();
  console.log(
    `set: ${set.sentences.length} sentences, ${fmt(set.durationSec)} s, ${VOCABULARY_TERMS.length} distinct terms, ${set.sentences.reduce((n, s) => n + s.terms.length, 0)} term occurrences\n`,
  );

  const runs: Run[] = [];
  const work = await mkdtemp(path.join(os.tmpdir(), "bench-vocabulary-"));
  try {
    const time = async (label: string, boost: number, vocabulary?: readonly string[]) => {
      const engine = new LocalPocketSphinxEngine({ ...pocketSphinxConfigFromEnv({}), vocabularyBoostLog10: boost });
      const workDir = await mkdtemp(path.join(work, "job-"));
      const started = performance.now();
      const r = await engine.transcribe(set.wav, { signal: AbortSignal.timeout(900_000), workDir, ...(vocabulary ? { vocabulary } : {}) });
      runs.push({ label, words: r.words, wallMs: performance.now() - started, ...(r.vocabulary ? { use: r.vocabulary } : {}) });
      console.log(`${label}: ${fmt((performance.now() - started) / 1000)} s`);
    };
    await time("without vocabulary (baseline)", DEFAULT_VOCABULARY_BOOST_LOG10);
    for (const b of boosts) await time(`with vocabulary, boost 10^${b}`, b, VOCABULARY_TERMS);
  } finally {
    await rm(work, { recursive: true, force: true });
  }

  const scoreOf = (run: Run, voice?: SetVoice): Score => {
    const bySentence = wordsBySentence(set.sentences, run.words);
    return set.sentences.reduce(
      (acc, s, i) => (voice && s.voice !== voice ? acc : addScores(acc, scoreSentence(s, bySentence[i]!))),
      emptyScore(),
    );
  };
  const baseline = scoreOf(runs[0]!);
  const rows = runs.map((run) => {
    const s = scoreOf(run);
    const slt = scoreOf(run, "slt");
    const klatt = scoreOf(run, "klatt2");
    return [
      run.label,
      `${pct(s.termsRecognised, s.termOccurrences)} (${s.termsRecognised}/${s.termOccurrences})`,
      `${fmt(s.termOccurrences && baseline.termsRecognised ? s.termsRecognised / baseline.termsRecognised : Number.NaN, 2)}×`,
      pct(slt.termsRecognised, slt.termOccurrences),
      pct(klatt.termsRecognised, klatt.termOccurrences),
      pct(s.restErrors, s.restWords),
      `${fmt((100 * s.restErrors) / s.restWords - (100 * baseline.restErrors) / baseline.restWords)}`,
      pct(s.allErrors, s.allWords),
      `${fmt(run.wallMs / 1000)} s`,
    ];
  });
  console.log("");
  console.log(
    table(
      [
        "run",
        "term recall",
        "vs baseline",
        "recall (Festival slt)",
        "recall (eSpeak klatt2)",
        "WER of the rest",
        "Δ rest WER (points)",
        "WER (all words)",
        "wall time",
      ],
      rows,
    ),
  );
  for (const run of runs) if (run.use) console.log(`${run.label}: ${JSON.stringify(run.use)}`);
  console.log(`(rest: ${baseline.restWords} reference words that are not terms; all: ${baseline.allWords} words)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
