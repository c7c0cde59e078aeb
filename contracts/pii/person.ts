import nlp from "compromise";
import type { DetectionInput, EntitySpan } from "./entity-span";
import { coreOf } from "./spoken-numbers";

/**
 * Person names.
 * - English: compromise's `people()` (its lexicon of first and last names and its grammar; it
 *   finds lower-case names too, "my name is john smith"), on the words joined by spaces.
 * - Every language: a name after a self-introduction cue ("my name is", "me llamo", "mi nombre
 *   es", "je m'appelle", "ich heiße", "mi chiamo", "chamo-me", "ik heet") or a title ("Mr",
 *   "Doctor", "Sra.", "Mme", "Herr", "Signora", "Senhor", "Mevrouw"): the next word, and one more
 *   when it is capitalised or, in a transcript without capitals, when compromise knows it as a name.
 * - Other languages, when the transcript has capitals: two or three capitalised words inside a
 *   sentence whose first word compromise's lexicon knows as a first name ("… con Carlos García …").
 *   Place names made of a first name ("San Francisco") are found too: a known limit.
 */
const INTRODUCTIONS =
  /^(?:my name is|my name's|name's|me llamo|mi nombre es|je m'appelle|mon nom est|ich heiße|ich heisse|mein name ist|mi chiamo|il mio nome è|chamo-me|me chamo|meu nome é|o meu nome é|ik heet|mijn naam is)$/;
const TITLES = new Set(
  "mr mrs ms miss mister dr doctor professor prof sr sra srta señor señora señorita don doña mme madame monsieur mlle mademoiselle herr frau signor signora signorina sig dott dottor dottoressa senhor senhora dona meneer mevrouw dhr mevr".split(
    " ",
  ),
);
const STOP = new Set(
  "a an the and or but to of in on at for with from by is are was were be been am i you he she it we they me him her us them my your his our their this that here there not no yes so very just also then now what who how why when where please thanks thank y e o de la el los las le les un une et ou und der die das ein eine il lo gli di da do dos das van het een en".split(
    " ",
  ),
);

interface OffsetMatch {
  offset: { start: number; length: number };
}

export function detectPeople(input: DetectionInput): EntitySpan[] {
  const { words } = input;
  const cased = words.some((w) => /\p{Lu}/u.test(w));
  const spans: EntitySpan[] = [];
  if (input.lang === "en") spans.push(...compromisePeople(words));
  const cores = words.map(coreOf);
  for (let i = 0; i < words.length; i++) {
    const after = cueEnd(cores, i);
    if (after === null) continue;
    const name = nameAt(words, cores, after, cased);
    if (name) spans.push({ type: "PERSON", ...name });
  }
  if (input.lang !== "en" && cased) spans.push(...capitalisedNames(words));
  return spans;
}

/** Where the name after an introduction or a title starting at word `i` begins; null when none starts there. */
function cueEnd(cores: readonly string[], i: number): number | null {
  if (TITLES.has(cores[i]!)) return i + 1;
  for (const n of [2, 3, 4]) if (INTRODUCTIONS.test(cores.slice(i, i + n).join(" "))) return i + n;
  return null;
}

function nameAt(words: readonly string[], cores: readonly string[], at: number, cased: boolean): { from: number; to: number } | null {
  const isNameWord = (k: number) =>
    k < words.length && /^\p{L}/u.test(words[k]!) && !STOP.has(cores[k]!) && (!cased || /^\p{Lu}/u.test(words[k]!));
  if (!isNameWord(at)) return null;
  let to = at + 1;
  // A second (and third) word: capitalised, or known to compromise as part of a name.
  while (to < Math.min(words.length, at + 3) && isNameWord(to) && (cased || knownName(cores[to]!))) to++;
  return { from: at, to };
}

/** compromise's lexicon, asked once per word (a parse per lookup is most of the detector's time otherwise). */
const lexicon = new Map<string, { name: boolean; firstName: boolean }>();
function lookUp(word: string): { name: boolean; firstName: boolean } {
  let known = lexicon.get(word);
  if (!known) {
    const doc = nlp(word);
    known = { name: doc.has("(#FirstName|#LastName|#Person|#MaleName|#FemaleName)"), firstName: doc.has("#FirstName") };
    // Bounded: a long transcript in another language must not grow it without end.
    if (lexicon.size > 5000) lexicon.clear();
    lexicon.set(word, known);
  }
  return known;
}
const knownName = (word: string): boolean => lookUp(word).name;

function compromisePeople(words: readonly string[]): EntitySpan[] {
  const starts: number[] = [];
  let text = "";
  for (const w of words) {
    if (text) text += " ";
    starts.push(text.length);
    text += w;
  }
  // compromise's `out("offset")` is typed loosely (any); the shape used here is documented in its README.
  const found = nlp(text).people().out("offset") as OffsetMatch[];
  const spans: EntitySpan[] = [];
  for (const m of found) {
    const start = m.offset.start;
    const end = start + m.offset.length;
    let from = -1;
    let to = -1;
    starts.forEach((s, i) => {
      const e = s + words[i]!.length;
      if (s < end && e > start) {
        if (from < 0) from = i;
        to = i + 1;
      }
    });
    if (from >= 0) spans.push({ type: "PERSON", from, to });
  }
  return spans;
}

function capitalisedNames(words: readonly string[]): EntitySpan[] {
  const spans: EntitySpan[] = [];
  const cap = (k: number) => k < words.length && /^\p{Lu}\p{Ll}/u.test(words[k]!);
  for (let i = 1; i < words.length; i++) {
    const sentenceStart = /[.!?:]$/.test(words[i - 1]!);
    if (sentenceStart || !cap(i) || cap(i - 1) || !cap(i + 1)) continue;
    if (!lookUp(coreOf(words[i]!)).firstName) continue;
    let to = i + 2;
    if (cap(to) && to < i + 3) to++;
    spans.push({ type: "PERSON", from: i, to });
  }
  return spans;
}
