import { createHash } from "node:crypto";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Word } from "../../../contracts/transcript";
import { addUnigrams, TrieLmError } from "./pocketsphinx-lm";
import { espeakIpa, ipaToCmu, termPronunciations, type EspeakConfig } from "./pronunciation";
import { boundedTerms, safeTerms, VocabularyTally, type VocabularyUse } from "./vocabulary";

/**
 * Vocabulary for PocketSphinx: each term becomes one dictionary entry under a placeholder name
 * (`vocabterm000`, `vocabterm001`, …) with its pronunciations in the model's phone set
 * (pronunciation.ts), and the same placeholder is added to a copy of the language model as a
 * unigram of probability 10^boostLog10, well above the median word's (about 10^-6.6 in the en-us
 * model), so the decoder prefers the term where the audio allows it. A multi-word term is one
 * entry (its words' pronunciations in a row), so it is recognised as a whole or not at all.
 *
 * Placeholders keep customer text out of both files: a dictionary line holds a placeholder and
 * CMU phones, the model a placeholder; the term's own spelling only replaces the placeholder in
 * the recognised words. Terms reach eSpeak NG (in a file) only after safeTerms.
 */

export interface VocabularyModelConfig {
  dict: string;
  lm: string;
  espeak: EspeakConfig;
  /** log10 unigram probability of every term. */
  boostLog10: number;
}

export interface PreparedVocabulary {
  dict: string;
  lm: string;
  /** Placeholder → the term's words as the caller spelt them. */
  terms: ReadonlyMap<string, readonly string[]>;
}

export interface VocabularyPreparation {
  /** Null when no term could be used (then the stock dictionary and model are used). */
  files: PreparedVocabulary | null;
  use: VocabularyUse;
}

export const placeholder = (i: number) => `vocabterm${String(i).padStart(3, "0")}`;

const LATIN_WORD = /^[\p{Script=Latin}\p{M}0-9']+$/u;

/** Words of a term as pronounced: hyphens separate words as spaces do ("Wi-Fi" is "wi" + "fi"). */
const spokenWords = (term: string) => term.split(/[ -]+/).filter(Boolean);

/**
 * Writes the dictionary and language model for `terms` under `dir` (named after a hash of the
 * terms and settings, so chunks of one job share them) and says what was used.
 */
export async function prepareVocabulary(
  terms: readonly string[],
  config: VocabularyModelConfig,
  workDir: string,
  signal: AbortSignal,
): Promise<VocabularyPreparation> {
  const tally = new VocabularyTally();
  const safe = safeTerms(boundedTerms(terms, tally), tally);
  if (safe.length === 0) return { files: null, use: tally.use("dictionary_unigram_boost", 0) };

  const key = createHash("sha256")
    .update(JSON.stringify([safe, config.dict, config.lm, config.boostLog10, config.espeak]))
    .digest("hex")
    .slice(0, 16);
  const dir = join(workDir, `vocabulary-${key}`);
  await mkdir(dir, { recursive: true });

  const baseDict = await readFile(config.dict, "utf8");
  const needed = new Set(safe.flatMap(spokenWords).map((w) => w.toLowerCase()));
  const known = knownPronunciations(baseDict, needed);
  // eSpeak's US English rules read Latin letters and ASCII digits; a word in another script gets no pronunciation.
  const unknown = [...needed].filter((w) => !known.has(w) && LATIN_WORD.test(w));
  // Without eSpeak (not installed, failing) the dictionary's words still count; the others have no pronunciation.
  const ipa = await espeakIpa(unknown, dir, config.espeak, signal).catch((err: unknown) => {
    if (signal.aborted) throw err;
    return [];
  });
  const espeak = new Map<string, string[]>();
  unknown.forEach((w, i) => {
    const phones = ipaToCmu(ipa[i] ?? "");
    if (phones.length) espeak.set(w, phones);
  });

  const entries: { name: string; words: string[]; prons: string[][] }[] = [];
  for (const term of safe) {
    const prons = termPronunciations(spokenWords(term), known, espeak);
    if (prons.length === 0) tally.drop("no_pronunciation");
    else entries.push({ name: placeholder(entries.length), words: term.split(" "), prons });
  }
  if (entries.length === 0) return { files: null, use: tally.use("dictionary_unigram_boost", 0) };

  const dictLines = entries.flatMap((e) => e.prons.map((p, i) => `${i === 0 ? e.name : `${e.name}(${i + 1})`} ${p.join(" ")}`));
  let lm: Buffer;
  try {
    lm = addUnigrams(
      await readFile(config.lm),
      entries.map((e) => ({ word: e.name, log10Prob: config.boostLog10 })),
    );
  } catch (err) {
    // An operator's own model in another format (ARPA, DMP): transcribe without the terms, saying so.
    if (!(err instanceof TrieLmError)) throw err;
    tally.drop("language_model_unsupported", entries.length);
    return { files: null, use: tally.use("dictionary_unigram_boost", 0) };
  }
  const files = { dict: join(dir, "vocabulary.dict"), lm: join(dir, "vocabulary.lm.bin") };
  // Written under a temporary name and renamed: a chunk that runs beside another never reads half a file.
  await atomicWrite(files.dict, `${baseDict.replace(/\n?$/, "\n")}${dictLines.join("\n")}\n`);
  await atomicWrite(files.lm, lm);
  return {
    files: { ...files, terms: new Map(entries.map((e) => [e.name, e.words])) },
    use: tally.use("dictionary_unigram_boost", entries.length),
  };
}

async function atomicWrite(path: string, data: string | Buffer): Promise<void> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

/** The stock dictionary's pronunciations of `words` (lower case). */
function knownPronunciations(dict: string, words: ReadonlySet<string>): Map<string, string[][]> {
  const out = new Map<string, string[][]>();
  for (const line of dict.split("\n")) {
    const space = line.indexOf(" ");
    if (space <= 0) continue;
    const word = line.slice(0, space).replace(/\(\d+\)$/, "");
    if (!words.has(word)) continue;
    const list = out.get(word) ?? [];
    list.push(
      line
        .slice(space + 1)
        .trim()
        .split(/\s+/),
    );
    out.set(word, list);
  }
  return out;
}

/** Recognised words with each placeholder replaced by its term's words, sharing its time by length. */
export function expandTerms(words: readonly Word[], terms: ReadonlyMap<string, readonly string[]>): Word[] {
  return words.flatMap((w) => {
    const parts = terms.get(w.word);
    if (!parts) return [w];
    const total = parts.reduce((n, p) => n + p.length, 0);
    let at = w.start;
    return parts.map((p) => {
      const end = at + ((w.end - w.start) * p.length) / total;
      const word: Word = { ...w, word: p, start: at, end };
      at = end;
      return word;
    });
  });
}
