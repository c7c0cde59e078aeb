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
import { prepareVocabulary } from "../gpu-runner/engines/speech/pocketsphinx-vocabulary";
import { wordErrorRate } from "../gpu-runner/services/transcription/wer";
import { buildSpeechWav } from "../scripts/make-sample-media";
import { VOCABULARY_TERMS, vocabularySet, type SetVoice } from "../test/support/vocabulary-set";
import { fmt, machineInfo, table } from "./lib";
import { keywordSpottingPass } from "./vocabulary-kws";
import { addScores, emptyScore, scoreSentence, termFalseAlarms, wordsBySentence, type Score } from "./vocabulary-lib";

/**
 * Vocabulary benchmark: the local PocketSphinx engine on the vocabulary set (test/support/
 * vocabulary-set.ts: 48 sentences naming 58 people, places and products, Festival and eSpeak NG
 * voices) without a vocabulary (the baseline) and with the set's terms as the job's vocabulary, in
 * the same run: term recall, term false alarms, WER of the other words, overall WER, wall time.
 * Then a control: the LibriVox recordings (no term is said in them) with and without the same
 * vocabulary, for what the terms cost speech that does not contain them.
 *
 *   npx tsx bench/vocabulary.ts [--boost=-4 …] [--kws=3 …] [--repeat 3]
 *
 * Each `--boost` (log10 unigram probability of a term; default the engine's) is one row of the
 * engine's method; each `--kws` (a term's detection threshold is 10^-(kws × its phones)) one row
 * of the alternative measured against it, a keyword-spotting second pass (vocabulary-kws.ts).
 * Decoding is deterministic, so one run of each gives the accuracy figures; wall time is the
 * engine's (vocabulary files, decoding), and the control's is the median of `--repeat` rounds.
 */

interface Run {
  label: string;
  words: Word[];
  wallMs: number;
}

const pct = (n: number, d: number) => (d ? `${fmt((100 * n) / d)} %` : "-");
const secs = (ms: number) => `${fmt(ms / 1000)} s`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      boost: { type: "string", multiple: true },
      kws: { type: "string", multiple: true },
      repeat: { type: "string", default: "3" },
    },
  });
  const repeat = Math.max(1, Number(values.repeat));
  const boosts = (values.boost ?? [String(DEFAULT_VOCABULARY_BOOST_LOG10)]).map(Number);
  const thresholds = (values.kws ?? []).map(Number);
  console.log(machineInfo());
  const set = await vocabularySet();
  const work = await mkdtemp(path.join(os.tmpdir(), "bench-vocabulary-"));
  const control = path.join(work, "librivox.wav");
  const reference = await buildSpeechWav(control);
  const signal = AbortSignal.timeout(3_600_000);
  const engineWith = (boost: number) => new LocalPocketSphinxEngine({ ...pocketSphinxConfigFromEnv({}), vocabularyBoostLog10: boost });
  console.log(
    `set: ${set.sentences.length} sentences, ${fmt(set.durationSec)} s, ${VOCABULARY_TERMS.length} distinct terms, ${set.sentences.reduce((n, s) => n + s.terms.length, 0)} term occurrences\n`,
  );

  const transcribe = async (audio: string, label: string, boost: number, vocabulary?: readonly string[]): Promise<Run> => {
    const workDir = await mkdtemp(path.join(work, "job-"));
    const started = performance.now();
    const r = await engineWith(boost).transcribe(audio, { signal, workDir, ...(vocabulary ? { vocabulary } : {}) });
    const wallMs = performance.now() - started;
    console.log(`${label}: ${secs(wallMs)}${r.vocabulary ? ` ${JSON.stringify(r.vocabulary)}` : ""}`);
    return { label, words: r.words, wallMs };
  };

  const runs: Run[] = [];
  const controls: Run[] = [];
  try {
    const baseline = await transcribe(set.wav, "without vocabulary (baseline)", DEFAULT_VOCABULARY_BOOST_LOG10);
    runs.push(baseline);
    for (const b of boosts) runs.push(await transcribe(set.wav, `unigram boost 10^${b}`, b, VOCABULARY_TERMS));
    for (const t of thresholds) {
      const started = performance.now();
      const dir = await mkdtemp(path.join(work, "kws-"));
      const config = pocketSphinxConfigFromEnv({});
      const prepared = await prepareVocabulary(
        VOCABULARY_TERMS,
        {
          dict: config.dict,
          lm: config.lm,
          espeak: { binary: config.espeakBinary, voice: "en-us" },
          boostLog10: DEFAULT_VOCABULARY_BOOST_LOG10,
        },
        dir,
        signal,
      );
      const words = await keywordSpottingPass(set.wav, config, prepared.files!, baseline.words, t, dir, signal);
      // The first pass is the baseline's decode: its time counts too.
      const wallMs = baseline.wallMs + performance.now() - started;
      runs.push({ label: `keyword spotting pass, threshold 10^-${t}/phone`, words, wallMs });
      console.log(`kws ${t}: ${secs(wallMs)}`);
    }
    // What the vocabulary adds before decoding: eSpeak NG, the dictionary and model copies.
    const config = pocketSphinxConfigFromEnv({});
    const prepMs: number[] = [];
    for (let i = 0; i < 3; i++) {
      const dir = await mkdtemp(path.join(work, "prep-"));
      const started = performance.now();
      await prepareVocabulary(
        VOCABULARY_TERMS,
        {
          dict: config.dict,
          lm: config.lm,
          espeak: { binary: config.espeakBinary, voice: "en-us" },
          boostLog10: DEFAULT_VOCABULARY_BOOST_LOG10,
        },
        dir,
        signal,
      );
      prepMs.push(performance.now() - started);
    }
    prepMs.sort((a, b) => a - b);
    console.log(`vocabulary files for ${VOCABULARY_TERMS.length} terms (median of 3): ${fmt(prepMs[1]!)} ms`);
    // Runs alternate (without, each boost, without, …) and the median wall time is kept, so a burst
    // of load on the machine does not land on one contender only; the words are the same each time.
    const rounds: Run[][] = [];
    for (let i = 0; i < repeat; i++) {
      const round = [await transcribe(control, "control without vocabulary", DEFAULT_VOCABULARY_BOOST_LOG10)];
      for (const b of boosts) round.push(await transcribe(control, `control, unigram boost 10^${b}`, b, VOCABULARY_TERMS));
      rounds.push(round);
    }
    rounds[0]!.forEach((run, k) => {
      const times = rounds.map((r) => r[k]!.wallMs).sort((a, b) => a - b);
      controls.push({ ...run, wallMs: times[Math.floor(times.length / 2)]! });
    });
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
  const falseAlarmsOf = (run: Run) => {
    const bySentence = wordsBySentence(set.sentences, run.words);
    return set.sentences.reduce((n, s, i) => n + termFalseAlarms(s, bySentence[i]!, VOCABULARY_TERMS), 0);
  };
  const base = scoreOf(runs[0]!);
  const baseRest = (100 * base.restErrors) / base.restWords;
  console.log("");
  console.log(
    table(
      [
        "run",
        "term recall",
        "vs baseline",
        "recall, Festival slt",
        "recall, eSpeak klatt2",
        "term false alarms",
        "WER of the rest",
        "Δ rest (points)",
        "WER, all words",
        "wall time",
      ],
      runs.map((run) => {
        const s = scoreOf(run);
        const slt = scoreOf(run, "slt");
        const klatt = scoreOf(run, "klatt2");
        return [
          run.label,
          `${pct(s.termsRecognised, s.termOccurrences)} (${s.termsRecognised}/${s.termOccurrences})`,
          base.termsRecognised ? `${fmt(s.termsRecognised / base.termsRecognised, 1)}×` : "-",
          pct(slt.termsRecognised, slt.termOccurrences),
          pct(klatt.termsRecognised, klatt.termOccurrences),
          String(falseAlarmsOf(run)),
          pct(s.restErrors, s.restWords),
          fmt((100 * s.restErrors) / s.restWords - baseRest),
          pct(s.allErrors, s.allWords),
          secs(run.wallMs),
        ];
      }),
    ),
  );
  console.log(`(rest: ${base.restWords} reference words that are not terms; all: ${base.allWords} words)\n`);

  const controlBase = wordErrorRate(reference, controls[0]!.words.map((w) => w.word).join(" "));
  console.log(
    `Control: the LibriVox recordings (${controlBase.referenceWords} words, none of them a term) with the same ${VOCABULARY_TERMS.length} terms`,
  );
  console.log(
    table(
      ["run", "WER", "Δ (points)", "terms inserted", "wall time"],
      controls.map((run) => {
        const w = wordErrorRate(reference, run.words.map((x) => x.word).join(" "));
        const inserted = termFalseAlarms({ text: reference }, run.words, VOCABULARY_TERMS);
        return [run.label, pct(w.errors, w.referenceWords), fmt(100 * (w.wer - controlBase.wer)), String(inserted), secs(run.wallMs)];
      }),
    ),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
