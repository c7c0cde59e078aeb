import { PII_ENGINE, PII_MODEL, redactSegments } from "../contracts/pii/redact";
import { PII_ENTITY_TYPES, type RedactedEntity } from "../contracts/redaction";
import type { Segment } from "../contracts/transcript";
import { piiSentences, writtenForm } from "../test/support/pii-set";
import { spokenPiiSet } from "../test/support/pii-spoken-set";
import { fmt, machineInfo, table } from "./lib";
import { BASELINE_ENGINE, baselineEntities, score, type Planted, type Scores } from "./redaction-lib";
import { wordsBySentence } from "./vocabulary-lib";

/**
 * Redaction benchmark: the PII detector (contracts/pii/) and, in the same run, a pattern-only
 * baseline (plain regular expressions, bench/redaction-lib.ts) on the labelled set
 * (test/support/pii-set.ts) in two forms:
 * - text: the sentences as written (digits, punctuation, capitals), one segment each, words
 *   without timings (the detector shares each segment's span out between its words);
 * - spoken: the English sentences said by eSpeak NG and Festival and transcribed by the local
 *   PocketSphinx engine (test/support/pii-spoken-set.ts), one segment per sentence, scored in time.
 * Recall and precision per entity type, and the detector's time per 1,000 words (median of 5).
 *
 *   npx tsx bench/redaction.ts
 */
const TEXT_PER_TYPE = 40;
const GOAL_TYPES = ["EMAIL", "PHONE", "CARD_NUMBER"] as const;

type Detector = { name: string; run: (segments: readonly Segment[], language: string) => RedactedEntity[] };

const DETECTORS: readonly Detector[] = [
  { name: `${PII_ENGINE} (${PII_MODEL})`, run: (segments, language) => redactSegments(segments, { language }).entities },
  { name: BASELINE_ENGINE, run: (segments) => baselineEntities(segments) },
];

const ratio = (n: number, d: number) => (d ? fmt(n / d, 2) : "-");

function report(title: string, results: ReadonlyArray<{ name: string; scores: Scores }>): void {
  console.log(`\n${title}`);
  const rows = [...PII_ENTITY_TYPES, "ALL" as const].map((type) => [
    type,
    String(results[0]!.scores[type].planted),
    ...results.flatMap((r) => [
      ratio(r.scores[type].found, r.scores[type].planted),
      ratio(r.scores[type].foundAnyType, r.scores[type].planted),
      ratio(r.scores[type].right, r.scores[type].redacted),
      String(r.scores[type].redacted),
    ]),
  ]);
  console.log(
    table(["type", "planted", ...results.flatMap((r) => [`${r.name.split(" ")[0]} recall`, "any type", "precision", "redacted"])], rows),
  );
}

async function main(): Promise<void> {
  console.log(machineInfo());

  // Text form: each sentence one segment in its own language.
  const sentences = piiSentences({ perType: TEXT_PER_TYPE, foreign: true });
  const planted: Planted[] = [];
  const byLanguage = new Map<string, Segment[]>();
  let wordCount = 0;
  sentences.forEach((s, id) => {
    const { words, entities } = writtenForm(s);
    wordCount += words.length;
    for (const e of entities) planted.push({ type: e.type, segmentId: id, from: e.from, to: e.to });
    const seg: Segment = { id, start: id * 10, end: id * 10 + words.length * 0.3, text: words.join(" ") };
    byLanguage.set(s.language, [...(byLanguage.get(s.language) ?? []), seg]);
  });
  console.log(
    `text form: ${sentences.length} sentences (${[...byLanguage.keys()].join(", ")}), ${wordCount} words, ${planted.length} planted entities`,
  );
  const textResults = DETECTORS.map((d) => ({
    name: d.name,
    scores: score(
      planted,
      [...byLanguage].flatMap(([language, segs]) => d.run(segs, language)),
      "words",
    ),
  }));
  report("Text form (written: digits, punctuation, capitals)", textResults);

  // Time per 1,000 words, median of 5 passes over the whole text set.
  for (const d of DETECTORS) {
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const started = performance.now();
      for (const [language, segs] of byLanguage) d.run(segs, language);
      times.push(performance.now() - started);
    }
    times.sort((a, b) => a - b);
    console.log(`${d.name}: ${fmt((times[2]! * 1000) / wordCount, 2)} ms per 1,000 words`);
  }

  // Spoken form.
  const started = performance.now();
  const spoken = await spokenPiiSet();
  const spokenPlanted: Planted[] = [];
  // wordsBySentence reads only each sentence's time; its term fields are the vocabulary bench's.
  const bySentence = wordsBySentence(
    spoken.sentences.map((s) => ({ text: "", terms: [], start: s.start, end: s.end })),
    spoken.words,
  );
  const segments: Segment[] = spoken.sentences.map((s, id) => {
    for (const e of s.entities) spokenPlanted.push({ type: e.type, segmentId: id, from: e.start, to: e.end });
    const words = bySentence[id]!;
    return { id, start: words[0]?.start ?? s.start, end: words.at(-1)?.end ?? s.end, text: words.map((w) => w.word).join(" "), words };
  });
  console.log(
    `\nspoken form: ${spoken.sentences.length} sentences, ${fmt(spoken.durationSec)} s of speech, ${spoken.words.length} recognised words (${spoken.engine}, ${spoken.model}), ${spokenPlanted.length} planted entities; set ready in ${fmt((performance.now() - started) / 1000)} s`,
  );
  const spokenResults = DETECTORS.map((d) => ({ name: d.name, scores: score(spokenPlanted, d.run(segments, "en"), "seconds") }));
  report("Spoken form (eSpeak NG / Festival → PocketSphinx: lower case, numbers as words, no punctuation)", spokenResults);
  for (const voice of ["espeak-ng", "festival"] as const) {
    const ids = new Set(spoken.sentences.flatMap((s, i) => (s.voice === voice ? [i] : [])));
    const r = score(
      spokenPlanted.filter((p) => ids.has(p.segmentId)),
      DETECTORS[0]!.run(
        segments.filter((s) => ids.has(s.id)),
        "en",
      ),
      "seconds",
    );
    console.log(
      `spoken, ${voice} sentences only: detector recall ${ratio(r.ALL.found, r.ALL.planted)}, precision ${ratio(r.ALL.right, r.ALL.redacted)}`,
    );
  }

  const goal = GOAL_TYPES.map((t) => `${t} ${ratio(textResults[0]!.scores[t].found, textResults[0]!.scores[t].planted)}`).join(", ");
  console.log(`\ngoal (text form recall ≥ 0.95): ${goal}`);
}

await main();
