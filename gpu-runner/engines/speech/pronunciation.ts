import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runTool } from "../../media/spawn";

/**
 * Pronunciations for vocabulary terms in the CMU phone set of PocketSphinx's US English model:
 * a word the model's dictionary (cmudict-en-us.dict) knows keeps its own pronunciations; any other
 * word is spelt out by eSpeak NG's US English rules (`espeak-ng -q --ipa -v en-us`), whose IPA is
 * mapped to CMU phones. Only terms already reduced to letters, digits, apostrophes, hyphens and
 * spaces (vocabulary.ts) come here; eSpeak reads them from a file, never from its command line.
 */

/** The 39 phones of the CMU dictionary (stress-free, as cmudict-en-us.dict writes them). */
export const CMU_PHONES = new Set(
  "AA AE AH AO AW AY B CH D DH EH ER EY F G HH IH IY JH K L M N NG OW OY P R S SH T TH UH UW V W Y Z ZH".split(" "),
);

/**
 * eSpeak NG's en-us IPA to CMU phones, longest symbols first. Vowel qualities eSpeak uses for
 * other accents or loanwords map to the nearest US English vowel; the flap ɾ is written T as
 * cmudict writes "water"; a glottal stop is dropped. Stress, length and syllable marks are not
 * phones of this model and are dropped.
 */
const IPA_TO_CMU: readonly (readonly [string, readonly string[]])[] = (
  [
    ["tʃ", ["CH"]],
    ["dʒ", ["JH"]],
    ["aɪə", ["AY", "ER"]],
    ["aɪɚ", ["AY", "ER"]],
    ["aʊɚ", ["AW", "ER"]],
    ["aɪ", ["AY"]],
    ["aʊ", ["AW"]],
    ["ɔɪ", ["OY"]],
    ["eɪ", ["EY"]],
    ["oʊ", ["OW"]],
    ["əʊ", ["OW"]],
    ["ɛɹ", ["EH", "R"]],
    ["ɪɹ", ["IH", "R"]],
    ["ʊɹ", ["UH", "R"]],
    ["ɑːɹ", ["AA", "R"]],
    ["ɔːɹ", ["AO", "R"]],
    ["oːɹ", ["AO", "R"]],
    ["ɜː", ["ER"]],
    ["ɝ", ["ER"]],
    ["ɚ", ["ER"]],
    ["ɜ", ["ER"]],
    ["ɑː", ["AA"]],
    ["ɑ", ["AA"]],
    ["ɒ", ["AA"]],
    ["æ", ["AE"]],
    ["a", ["AE"]],
    ["ʌ", ["AH"]],
    ["ə", ["AH"]],
    ["ɐ", ["AH"]],
    ["ɔː", ["AO"]],
    ["ɔ", ["AO"]],
    ["ɛ", ["EH"]],
    ["e", ["EH"]],
    ["ɪ", ["IH"]],
    ["ᵻ", ["IH"]],
    ["iː", ["IY"]],
    ["i", ["IY"]],
    ["ʊ", ["UH"]],
    ["uː", ["UW"]],
    ["u", ["UW"]],
    ["o", ["OW"]],
    ["y", ["UW"]],
    ["ø", ["ER"]],
    ["œ", ["ER"]],
    ["l̩", ["AH", "L"]],
    ["n̩", ["AH", "N"]],
    ["m̩", ["AH", "M"]],
    ["b", ["B"]],
    ["d", ["D"]],
    ["ð", ["DH"]],
    ["f", ["F"]],
    ["ɡ", ["G"]],
    ["g", ["G"]],
    ["h", ["HH"]],
    ["j", ["Y"]],
    ["k", ["K"]],
    ["x", ["K"]],
    ["l", ["L"]],
    ["ɫ", ["L"]],
    ["ɬ", ["L"]],
    ["m", ["M"]],
    ["n", ["N"]],
    ["ɲ", ["N", "Y"]],
    ["ŋ", ["NG"]],
    ["p", ["P"]],
    ["ɹ", ["R"]],
    ["r", ["R"]],
    ["ɾ", ["T"]],
    ["s", ["S"]],
    ["ʃ", ["SH"]],
    ["t", ["T"]],
    ["θ", ["TH"]],
    ["v", ["V"]],
    ["w", ["W"]],
    ["ʍ", ["W"]],
    ["z", ["Z"]],
    ["ʒ", ["ZH"]],
  ] as const
)
  .slice()
  .sort((a, b) => b[0].length - a[0].length);

/** CMU phones for eSpeak NG's IPA of one word or phrase; symbols with no mapping are skipped. */
export function ipaToCmu(ipa: string): string[] {
  const phones: string[] = [];
  const text = ipa.normalize("NFC").replace(/\s+/g, " ");
  let i = 0;
  outer: while (i < text.length) {
    const rest = text.slice(i);
    for (const [symbol, cmu] of IPA_TO_CMU) {
      if (rest.startsWith(symbol)) {
        phones.push(...cmu);
        i += symbol.length;
        continue outer;
      }
    }
    // Spaces, stress and length marks, syllable breaks, ties, the glottal stop, anything unmapped: no phone.
    i += 1;
  }
  return phones;
}

export type CmuDict = ReadonlyMap<string, readonly (readonly string[])[]>;

export interface EspeakConfig {
  binary: string;
  voice: string;
}

/**
 * eSpeak NG's IPA for each of `texts`, in one run: each text ends a sentence, and eSpeak answers
 * one line per sentence. Should the answer not line up (a text eSpeak reads as more than one
 * sentence), each text is run on its own. An empty string where eSpeak had nothing to say.
 */
export async function espeakIpa(texts: readonly string[], dir: string, config: EspeakConfig, signal: AbortSignal): Promise<string[]> {
  if (texts.length === 0) return [];
  const batch = await espeakLines(texts, join(dir, "terms.txt"), config, signal);
  if (batch.length === texts.length) return batch;
  const one: string[] = [];
  for (const [i, text] of texts.entries()) one.push((await espeakLines([text], join(dir, `term-${i}.txt`), config, signal)).join(" "));
  return one;
}

async function espeakLines(texts: readonly string[], file: string, config: EspeakConfig, signal: AbortSignal): Promise<string[]> {
  await writeFile(file, texts.map((t) => `${t}.\n`).join(""));
  const lines: string[] = [];
  const res = await runTool(config.binary, ["-q", "--ipa", "-v", config.voice, "-f", file], {
    signal,
    onStdoutLine: (line) => lines.push(line.trim()),
  });
  if (res.code !== 0) throw new Error(`${config.binary} exited with ${res.code}: ${res.stderrTail.slice(-2).join(" | ")}`);
  while (lines.length > texts.length && lines.at(-1) === "") lines.pop();
  return lines;
}

/**
 * The pronunciations of a term (one or more words): every combination of the dictionary's
 * pronunciations of known words (at most `maxVariants`), with eSpeak's for unknown ones.
 */
export function termPronunciations(
  words: readonly string[],
  dict: CmuDict,
  espeak: ReadonlyMap<string, string[]>,
  maxVariants = 3,
): string[][] {
  let variants: string[][] = [[]];
  for (const word of words) {
    const key = word.toLowerCase();
    const options = dict.get(key) ?? (espeak.get(key) ? [espeak.get(key)!] : []);
    if (options.length === 0 || options.some((o) => o.length === 0 || o.some((p) => !CMU_PHONES.has(p)))) return [];
    variants = variants.flatMap((v) => options.map((o) => [...v, ...o])).slice(0, maxVariants);
  }
  return variants.filter((v) => v.length > 0);
}
