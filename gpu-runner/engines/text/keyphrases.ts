import nlp from "compromise";
import type { SentenceContent } from "nlcst";
import { toString } from "nlcst-to-string";
import { retext } from "retext";
import retextKeywords from "retext-keywords";
import retextPos from "retext-pos";
import type { AnalysedText, Token } from "./analysis";

/**
 * Keywords from the transcript's own words, best first.
 *
 * English. Candidates are
 * - retext-keywords' keyphrases (runs of nouns, and capitalised adjectives, tagged by retext-pos),
 *   each split into runs of words that the wink pass found to be content words anywhere in the
 *   transcript and that are not generic (ordinals, units of time, "today", "people": `GENERIC_EN`),
 *   so "two league leaders" gives "league leaders" and "first ten minutes" gives nothing; a run is
 *   then widened to the nouns wink tags directly beside it (`compoundWidener`);
 * - named people, places and organisations found by compromise, run on the distinct sentences in
 *   which wink tagged a proper noun (running it on every sentence of an hour costs seconds; a name
 *   wink does not tag as proper noun, as in a lower-case transcript, is missed; a "name" never
 *   written with a capital in the transcript is dropped).
 * Every candidate is counted in the normalised text (whole words, any case) and scored
 * `occurrences × (1 + 0.5 × (words − 1))`, × 1.5 for a named entity: repetition first, a longer
 * phrase and a name worth a little more. Candidates with the same terms (stems) merge ("mushroom",
 * "mushrooms"); a candidate is shown in its most frequent spelling (lower case wins a tie).
 *
 * Other languages (no part of speech): the content words (analysis.ts) and the pairs of adjacent
 * content words in a sentence that occur at least twice, scored the same way.
 */

export interface Keyword {
  /** As it appears in the transcript. */
  text: string;
  score: number;
  occurrences: number;
  /** Its content terms (stems in English), sorted; two keywords with the same terms are one. */
  terms: string[];
  entity: boolean;
  /** Offset of its first occurrence in the normalised text. */
  first: number;
}

const GENERIC_EN = new Set(
  (
    "first second third fourth fifth sixth seventh eighth ninth tenth next last half time times minute minutes second seconds " +
    "hour hours day days week weeks month months year years today tonight tomorrow yesterday everyone everybody someone " +
    "somebody anyone people person part end start way lot thing things stuff bit kind sort number numbers"
  ).split(" "),
);
const ENTITY_BONUS = 1.5;
const RETEXT_MAXIMUM = 40;
const MAX_PHRASE_WORDS = 4;

const keyphraseProcessor = retext().use(retextPos).use(retextKeywords, { maximum: RETEXT_MAXIMUM }).freeze();

export function rankKeywords(a: AnalysedText): Keyword[] {
  const raw = a.method === "wink-english" ? englishCandidates(a) : neutralCandidates(a);
  return merge(a, raw);
}

interface Candidate {
  text: string;
  entity: boolean;
}

function englishCandidates(a: AnalysedText): Candidate[] {
  const contentLowers = new Set(a.tokens.filter((t) => t.content).map((t) => t.lower));
  const keep = (word: string): boolean => {
    const lower = word.toLowerCase();
    if (GENERIC_EN.has(lower)) return false;
    return (
      contentLowers.has(lower) || lower.split(/['’-]/u).some((part) => part.length > 1 && contentLowers.has(part) && !GENERIC_EN.has(part))
    );
  };
  const out: Candidate[] = [];
  const widen = compoundWidener(a);
  const file = keyphraseProcessor.processSync(a.text);
  for (const phrase of file.data.keyphrases ?? [])
    for (const match of phrase.matches) {
      let run: SentenceContent[] = [];
      const flush = () => {
        const first = run[0]?.position?.start.offset;
        const last = run[run.length - 1]?.position?.end.offset;
        if (first !== undefined && last !== undefined) out.push({ text: widen(first, last), entity: false });
        run = [];
      };
      for (const node of match.nodes as SentenceContent[]) {
        if (node.type !== "WordNode") continue;
        if (keep(toString(node))) run.push(node);
        else flush();
      }
      flush();
    }
  for (const name of namedEntities(a)) out.push({ text: name, entity: true });
  return out;
}

/**
 * retext-pos misses the first noun of many compounds ("headphone jack" gives "jack"): a run is
 * widened to the nouns and proper nouns wink tags directly beside it (one space apart, not generic),
 * up to `MAX_PHRASE_WORDS` words. Returns the text between the two offsets after widening.
 */
function compoundWidener(a: AnalysedText): (from: number, to: number) => string {
  const byStart = new Map<number, number>();
  const byEnd = new Map<number, number>();
  a.tokens.forEach((t, i) => {
    byStart.set(t.offset, i);
    byEnd.set(t.offset + t.surface.length, i);
  });
  const noun = (i: number): boolean => {
    const t = a.tokens[i];
    return !!t && t.content && (t.pos === "NOUN" || t.pos === "PROPN") && !GENERIC_EN.has(t.lower);
  };
  const adjacent = (i: number, j: number): boolean => {
    const x = a.tokens[i];
    const y = a.tokens[j];
    return !!x && !!y && x.segment === y.segment && a.text.slice(x.offset + x.surface.length, y.offset) === " ";
  };
  return (from, to) => {
    let i = byStart.get(from);
    let j = byEnd.get(to);
    if (i === undefined || j === undefined) return a.text.slice(from, to);
    while (j - i + 1 < MAX_PHRASE_WORDS && noun(i - 1) && adjacent(i - 1, i)) i--;
    while (j - i + 1 < MAX_PHRASE_WORDS && noun(j + 1) && adjacent(j, j + 1)) j++;
    const first = a.tokens[i] as Token;
    const last = a.tokens[j] as Token;
    return a.text.slice(first.offset, last.offset + last.surface.length);
  };
}

function namedEntities(a: AnalysedText): string[] {
  const withProperNoun = new Set<string>();
  for (const s of a.sentences) {
    for (let k = s.tokenFrom; k <= s.tokenTo; k++)
      if (a.tokens[k]?.pos === "PROPN") {
        withProperNoun.add(s.text);
        break;
      }
  }
  if (withProperNoun.size === 0) return [];
  const doc = nlp([...withProperNoun].join(" "));
  const names = [...doc.people().out("array"), ...doc.places().out("array"), ...doc.organizations().out("array")] as string[];
  return names.map((n) => n.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")).filter((n) => /\p{L}/u.test(n));
}

function neutralCandidates(a: AnalysedText): Candidate[] {
  const out: Candidate[] = [];
  const pairs = new Map<string, { text: string; n: number }>();
  for (const s of a.sentences)
    for (let k = s.tokenFrom; k <= s.tokenTo; k++) {
      const t = a.tokens[k];
      if (!t?.content) continue;
      out.push({ text: t.surface, entity: false });
      const next = a.tokens[k + 1];
      if (k < s.tokenTo && next?.content) {
        const text = a.text.slice(t.offset, next.offset + next.surface.length);
        const key = text.toLocaleLowerCase(a.locale);
        const p = pairs.get(key) ?? { text, n: 0 };
        p.n++;
        pairs.set(key, p);
      }
    }
  for (const p of pairs.values()) if (p.n >= 2) out.push({ text: p.text, entity: false });
  return out;
}

/** Counts, scores and merges candidates; see the module's documentation. */
function merge(a: AnalysedText, candidates: readonly Candidate[]): Keyword[] {
  const termOf = new Map<string, string>();
  for (const t of a.tokens) if (!termOf.has(t.lower)) termOf.set(t.lower, t.term);
  const lowerText = a.text.toLocaleLowerCase(a.locale);
  // toLocaleLowerCase can change the length (İ → i̇); spellings are then read from the lower-case text.
  const sameLength = lowerText.length === a.text.length;

  // One candidate per spelling (any case); a name found by compromise keeps its bonus.
  const distinct = new Map<string, Candidate>();
  for (const c of candidates) {
    const lower = c.text.toLocaleLowerCase(a.locale);
    const prev = distinct.get(lower);
    distinct.set(lower, { text: c.text, entity: c.entity || (prev?.entity ?? false) });
  }
  const byKey = new Map<string, Keyword>();
  for (const [lower, c] of distinct) {
    const found = occurrences(lowerText, lower);
    if (found.length === 0) continue;
    const spellings = new Map<string, number>();
    for (const at of found) {
      const s = (sameLength ? a.text : lowerText).slice(at, at + lower.length);
      spellings.set(s, (spellings.get(s) ?? 0) + 1);
    }
    // compromise also finds names in common nouns ("a headphone jack"); a name is written with a capital somewhere.
    if (c.entity && ![...spellings.keys()].some((sp) => /^\p{Lu}/u.test(sp))) continue;
    const text = [...spellings].sort((x, y) => y[1] - x[1] || Number(x[0] !== lower) - Number(y[0] !== lower))[0]?.[0] ?? c.text;
    const words = lower.split(/\s+/u).filter(Boolean);
    const terms = [...new Set(words.map((w) => termOf.get(w) ?? w))].sort();
    const kw: Keyword = {
      text,
      occurrences: found.length,
      score: found.length * (1 + 0.5 * (words.length - 1)) * (c.entity ? ENTITY_BONUS : 1),
      terms,
      entity: c.entity,
      first: found[0] ?? 0,
    };
    const key = terms.join(" ");
    const prev = byKey.get(key);
    if (!prev) byKey.set(key, kw);
    else {
      const winner = kw.occurrences > prev.occurrences ? kw : prev;
      byKey.set(key, {
        ...winner,
        occurrences: prev.occurrences + kw.occurrences,
        score: prev.score + kw.score,
        entity: prev.entity || kw.entity,
        first: Math.min(prev.first, kw.first),
      });
    }
  }
  return [...byKey.values()].sort((x, y) => y.score - x.score || x.first - y.first);
}

const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Offsets of `needle` in `haystack` as a whole word (not inside a longer word), except in scripts written without spaces. */
function occurrences(haystack: string, needle: string): number[] {
  const out: number[] = [];
  const wholeWord = !UNSPACED.test(needle);
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + 1)) {
    if (wholeWord && (WORD_CHAR.test(haystack.charAt(at - 1)) || WORD_CHAR.test(haystack.charAt(at + needle.length)))) continue;
    out.push(at);
  }
  return out;
}

/**
 * Exactly `count` keywords for a summary: the ranked keywords; then, if fewer, the most frequent
 * content words; then the most frequent words of any kind; and only when the transcript has fewer
 * distinct words than `count`, the list again from its start (a repeated keyword is still the
 * transcript's word; nothing is made up to fill the slots).
 */
export function exactlyKeywords(a: AnalysedText, ranked: readonly Keyword[], count: number): string[] {
  const out: string[] = [];
  const taken = new Set<string>();
  const add = (text: string) => {
    const key = text.toLocaleLowerCase(a.locale);
    if (out.length < count && !taken.has(key)) {
      taken.add(key);
      out.push(text);
    }
  };
  for (const k of ranked) add(k.text);
  for (const w of byFrequency(a, true)) add(w);
  for (const w of byFrequency(a, false)) add(w);
  for (let i = 0; out.length > 0 && out.length < count; i++) out.push(out[i] as string);
  return out;
}

/** Distinct words by frequency (content words only, or all), each in its most frequent spelling. */
function byFrequency(a: AnalysedText, contentOnly: boolean): string[] {
  const counts = new Map<string, { n: number; first: number; spellings: Map<string, number> }>();
  a.tokens.forEach((t, i) => {
    if (contentOnly && !t.content) return;
    const c = counts.get(t.lower) ?? { n: 0, first: i, spellings: new Map<string, number>() };
    c.n++;
    c.spellings.set(t.surface, (c.spellings.get(t.surface) ?? 0) + 1);
    counts.set(t.lower, c);
  });
  return [...counts.values()]
    .sort((x, y) => y.n - x.n || x.first - y.first)
    .map((c) => [...c.spellings].sort((x, y) => y[1] - x[1])[0]?.[0] ?? "")
    .filter((w) => w.length > 0);
}
