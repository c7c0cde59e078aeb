import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Word } from "../contracts/transcript";
import { runToolOk } from "../gpu-runner/media/spawn";
import type { PocketSphinxConfig } from "../gpu-runner/engines/speech/local-pocketsphinx";
import { parsePocketSphinxTimes } from "../gpu-runner/engines/speech/local-pocketsphinx";
import { expandTerms, type PreparedVocabulary } from "../gpu-runner/engines/speech/pocketsphinx-vocabulary";

/**
 * The alternative the engine does not use, kept here so its figures can be reproduced: a second
 * PocketSphinx pass in keyword-spotting mode (`-kws`, one line per term with its detection
 * threshold) over the same audio, with the job's dictionary (placeholders and their phones), whose
 * detections replace the first pass's words they overlap (a word whose midpoint falls inside a
 * detection). Overlapping detections keep the one with the higher posterior. A term's threshold is
 * 10^-(perPhone × its phones): a longer keyphrase collects more acoustic penalty against the phone
 * loop it competes with, so it needs a lower threshold to be found at all.
 */
export async function keywordSpottingPass(
  audio: string,
  config: PocketSphinxConfig,
  vocab: PreparedVocabulary,
  firstPass: readonly Word[],
  perPhone: number,
  dir: string,
  signal: AbortSignal,
): Promise<Word[]> {
  const phones = new Map<string, number>();
  for (const line of (await readFile(vocab.dict, "utf8")).split("\n")) {
    const [name, ...p] = line.split(" ");
    if (name && vocab.terms.has(name)) phones.set(name, p.length);
  }
  const list = path.join(dir, `keyphrases-${perPhone}.txt`);
  await writeFile(
    list,
    [...vocab.terms.keys()].map((name) => `${name} /1e-${Math.round(perPhone * (phones.get(name) ?? 5))}/`).join("\n") + "\n",
  );
  const lines: string[] = [];
  await runToolOk(
    config.binary,
    ["-infile", audio, "-time", "yes", "-hmm", config.hmm, "-dict", vocab.dict, "-kws", list, "-logfn", "/dev/null"],
    // Keyword-spotting lines put two spaces after the keyphrase.
    { signal, onStdoutLine: (l) => lines.push(l.trim().replace(/\s+/g, " ")) },
  );
  const detections = parsePocketSphinxTimes(lines.join("\n")).filter((w) => vocab.terms.has(w.word));
  const kept: Word[] = [];
  for (const d of [...detections].sort((a, b) => (b.confidence ?? 0) - (a.confidence ?? 0))) {
    if (!kept.some((k) => d.start < k.end && k.start < d.end)) kept.push(d);
  }
  const inside = (w: Word) => kept.some((d) => (w.start + w.end) / 2 >= d.start && (w.start + w.end) / 2 <= d.end);
  const merged = [...firstPass.filter((w) => !inside(w)), ...kept].sort((a, b) => a.start - b.start);
  return expandTerms(merged, vocab.terms);
}
