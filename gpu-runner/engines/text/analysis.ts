import * as stopword from "stopword";
import winkNLP, { type ItsFunction, type PartOfSpeech } from "wink-nlp";
import model from "wink-eng-lite-web-model";
import type { Segment } from "../../../contracts/transcript";
import { isKanaOnly, segmenterLocale } from "../../../contracts/text-words";

/**
 * One pass over a transcript that everything else in the local text engine reads: the normalised
 * text (segment texts, whitespace collapsed, joined by one space; every extract is a substring of
 * it), its word tokens with their segment, and its sentences with their time span.
 *
 * English (`en`, `en-*`): wink-nlp with wink-eng-lite-web-model gives tokens, sentences, part of
 * speech, Porter2 stems and stop-word flags; a content word is a noun, proper noun, verb or
 * adjective that is not a stop word or a spoken filler, and its term is its stem.
 *
 * Any other language (the "language-neutral" method): Unicode text segmentation (UAX #29 through
 * `Intl.Segmenter`, which also splits Chinese, Japanese and Thai into words) gives words and
 * sentences; there is no part of speech and no stemming, so a content word is any word that is not
 * in the `stopword` package's list for the language (when it has one), not a number, and at least
 * 3 letters long in a spaced script (in Japanese, not written in hiragana alone, which is mostly
 * particles and verb endings); its term is its lower-cased form.
 *
 * A sentence longer than 60 words that spans several segments (a transcript without punctuation)
 * is split at the segment boundaries: the speaker's pauses are the best sentence breaks left.
 */

export type AnalysisMethod = "wink-english" | "unicode-neutral";

export interface Token {
  /** As written in the transcript. */
  surface: string;
  lower: string;
  /** What matching compares: the stem (English) or the lower-cased word. */
  term: string;
  /** Offset in the normalised text. */
  offset: number;
  /** Index into `AnalysedText.segments`. */
  segment: number;
  content: boolean;
  /** wink's Universal POS tag (English only). */
  pos?: PartOfSpeech;
  numeric: boolean;
}

export interface Sentence {
  index: number;
  /** A substring of the normalised text. */
  text: string;
  offset: number;
  /** Seconds: the first spanned segment's start to the last one's end. */
  start: number;
  end: number;
  firstSegment: number;
  lastSegment: number;
  /** Indexes into `AnalysedText.tokens`. */
  tokenFrom: number;
  tokenTo: number;
  /** Content-word terms, in order. */
  terms: string[];
  words: number;
}

export interface AnalysedText {
  method: AnalysisMethod;
  /** The locale used for segmentation and case (the transcript's language, or `und`). */
  locale: string;
  text: string;
  /** Sorted by start time (then id). */
  segments: readonly Segment[];
  /** Each segment's content terms, for topic segmentation. */
  segmentTerms: string[][];
  /** Whether a sentence starts where the segment's text starts (a chapter may open there). */
  segmentOpensSentence: boolean[];
  tokens: Token[];
  sentences: Sentence[];
  contentWords: number;
}

export const LONG_SENTENCE_WORDS = 60;
/** wink token types that are words (punctuation, emoji, URLs, times and the like are not). */
export const WORD_TYPES: ReadonlySet<string> = new Set(["word", "number", "ordinal", "hashtag"]);

/** Spoken fillers that wink's stop-word list does not have: frequent in speech and never a topic. */
const FILLERS_EN = new Set(
  "yeah yes okay ok um uh uhm hmm erm like gonna wanna gotta thing things stuff lot lots kind sort guy guys bit way".split(" "),
);
const CONTENT_POS: ReadonlySet<PartOfSpeech> = new Set(["NOUN", "PROPN", "VERB", "ADJ"]);

let wink: ReturnType<typeof winkNLP> | undefined;
/** The English pipeline, loaded once per process (the model takes a few hundred milliseconds). */
export function englishNlp(): ReturnType<typeof winkNLP> {
  wink ??= winkNLP(model);
  return wink;
}

/**
 * wink's `its.stem` as `out()` accepts it: its typings give stem's third parameter as the model's
 * addons where `out()` passes the cache, so the two types do not unify, though wink calls it right.
 */
export const stemIts = (nlp: ReturnType<typeof winkNLP>): ItsFunction<string> => nlp.its.stem as unknown as ItsFunction<string>;

export const isEnglish = (language: string): boolean => language.trim().toLowerCase().split(/[-_]/)[0] === "en";

export function analyse(segments: readonly Segment[], language: string): AnalysedText {
  const sorted = [...segments].sort((a, b) => a.start - b.start || a.id - b.id);
  const spans: { offset: number; length: number }[] = [];
  const parts: string[] = [];
  let offset = 0;
  for (const s of sorted) {
    const clean = s.text.replace(/\s+/gu, " ").trim();
    spans.push({ offset, length: clean.length });
    if (clean.length > 0) {
      parts.push(clean);
      offset += clean.length + 1;
    }
  }
  const text = parts.join(" ");
  const english = isEnglish(language);
  const locale = english ? "en" : segmenterLocale(language);
  const raw = english ? englishTokens(text) : neutralTokens(text, locale, language);

  const segmentOf = segmentLocator(spans);
  const tokens: Token[] = raw.tokens.map((t) => ({ ...t, segment: segmentOf(t.offset) }));
  const sentences = toSentences(text, tokens, raw.sentenceTokenRanges, sorted);

  const segmentTerms: string[][] = sorted.map(() => []);
  for (const t of tokens) if (t.content) segmentTerms[t.segment]?.push(t.term);
  const segmentOpensSentence = sorted.map(() => false);
  for (const s of sentences) {
    const span = spans[s.firstSegment];
    if (span && span.offset === s.offset) segmentOpensSentence[s.firstSegment] = true;
  }
  return {
    method: english ? "wink-english" : "unicode-neutral",
    locale,
    text,
    segments: sorted,
    segmentTerms,
    segmentOpensSentence,
    tokens,
    sentences,
    contentWords: tokens.filter((t) => t.content).length,
  };
}

type RawToken = Omit<Token, "segment">;
interface RawTokens {
  tokens: RawToken[];
  /** Inclusive token index ranges, one per sentence. */
  sentenceTokenRanges: [number, number][];
}

function englishTokens(text: string): RawTokens {
  const nlp = englishNlp();
  const its = nlp.its;
  const doc = nlp.readDoc(text);
  const all = doc.tokens();
  const values = all.out(its.value) as string[];
  const spaces = all.out(its.precedingSpaces) as string[];
  const types = all.out(its.type) as string[];
  const pos = all.out(its.pos) as PartOfSpeech[];
  const stems = all.out(stemIts(nlp)) as string[];
  const stops = all.out(its.stopWordFlag) as unknown as boolean[];

  const tokens: RawToken[] = [];
  // wink's tokens (all kinds) → our word tokens; wink is lossless, so offsets add up.
  const winkToOurs: number[] = [];
  let offset = 0;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] ?? "";
    offset += (spaces[i] ?? "").length;
    winkToOurs.push(tokens.length);
    const type = types[i];
    if (type !== undefined && WORD_TYPES.has(type)) {
      const lower = value.toLowerCase();
      const p = pos[i];
      const numeric = type !== "word" || p === "NUM";
      const letters = /\p{L}{2,}/u.test(value);
      tokens.push({
        surface: value,
        lower,
        term: winkTerm(value, type, stems[i]),
        offset,
        content: !numeric && letters && !stops[i] && p !== undefined && CONTENT_POS.has(p) && !FILLERS_EN.has(lower),
        pos: p,
        numeric,
      });
    }
    offset += value.length;
  }
  winkToOurs.push(tokens.length);

  const sentenceTokenRanges: [number, number][] = [];
  for (const span of doc.sentences().out(its.span) as unknown as [number, number][]) {
    const from = winkToOurs[span[0]] ?? tokens.length;
    const to = (winkToOurs[span[1] + 1] ?? tokens.length) - 1;
    if (to >= from) sentenceTokenRanges.push([from, to]);
  }
  return { tokens, sentenceTokenRanges };
}

/** What an English token is matched on: its Porter2 stem, or the lower-cased token for numbers and one-letter words. */
export function winkTerm(value: string, type: string | undefined, stem: string | undefined): string {
  const lower = value.toLowerCase();
  return type !== "word" || !/\p{L}{2,}/u.test(value) ? lower : (stem ?? lower).toLowerCase();
}

/** ISO 639-1 (or 639-3) → the `stopword` package's lists. */
const STOPWORDS: Record<string, readonly string[]> = {
  af: stopword.afr,
  ar: stopword.ara,
  bg: stopword.bul,
  bn: stopword.ben,
  br: stopword.bre,
  ca: stopword.cat,
  cs: stopword.ces,
  da: stopword.dan,
  de: stopword.deu,
  el: stopword.ell,
  en: stopword.eng,
  eo: stopword.epo,
  es: stopword.spa,
  et: stopword.est,
  eu: stopword.eus,
  fa: stopword.fas,
  fi: stopword.fin,
  fr: stopword.fra,
  ga: stopword.gle,
  gl: stopword.glg,
  gu: stopword.guj,
  ha: stopword.hau,
  he: stopword.heb,
  hi: stopword.hin,
  hr: stopword.hrv,
  hu: stopword.hun,
  hy: stopword.hye,
  id: stopword.ind,
  it: stopword.ita,
  ja: stopword.jpn,
  ko: stopword.kor,
  ku: stopword.kur,
  la: stopword.lat,
  lt: stopword.lit,
  lv: stopword.lav,
  mr: stopword.mar,
  ms: stopword.msa,
  my: stopword.mya,
  nb: stopword.nob,
  nl: stopword.nld,
  no: stopword.nob,
  pa: stopword.panGu,
  pl: stopword.pol,
  pt: stopword.por,
  ro: stopword.ron,
  ru: stopword.rus,
  sk: stopword.slk,
  sl: stopword.slv,
  so: stopword.som,
  st: stopword.sot,
  sv: stopword.swe,
  sw: stopword.swa,
  th: stopword.tha,
  tl: stopword.tgl,
  tr: stopword.tur,
  uk: stopword.ukr,
  ur: stopword.urd,
  vi: stopword.vie,
  yo: stopword.yor,
  zh: stopword.zho,
  zu: stopword.zul,
};

const stopSets = new Map<string, ReadonlySet<string>>();
/** The `stopword` list for an ISO 639-1 tag, or a 639-3 one the package names directly; empty when it has none. */
function stopWordsFor(language: string, locale: string): ReadonlySet<string> {
  const primary = language.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  let set = stopSets.get(primary);
  if (!set) {
    const byIso3 = (stopword as unknown as Record<string, readonly string[] | undefined>)[primary];
    set = new Set((STOPWORDS[primary] ?? (Array.isArray(byIso3) ? byIso3 : [])).map((w) => w.toLocaleLowerCase(locale)));
    stopSets.set(primary, set);
  }
  return set;
}

/** Scripts written without spaces, where a one- or two-character word is a real word. */
const UNSPACED =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

function neutralTokens(text: string, locale: string, language: string): RawTokens {
  const stops = stopWordsFor(language, locale);
  const tokens: RawToken[] = [];
  for (const w of new Intl.Segmenter(locale, { granularity: "word" }).segment(text)) {
    if (!w.isWordLike) continue;
    const lower = w.segment.toLocaleLowerCase(locale);
    const numeric = !/\p{L}/u.test(w.segment);
    const longEnough = UNSPACED.test(w.segment) ? !isKanaOnly(w.segment) : [...w.segment].length >= 3;
    tokens.push({ surface: w.segment, lower, term: lower, offset: w.index, content: !numeric && longEnough && !stops.has(lower), numeric });
  }
  const sentenceTokenRanges: [number, number][] = [];
  let k = 0;
  for (const s of new Intl.Segmenter(locale, { granularity: "sentence" }).segment(text)) {
    const end = s.index + s.segment.length;
    const from = k;
    while (k < tokens.length && (tokens[k]?.offset ?? Infinity) < end) k++;
    if (k > from) sentenceTokenRanges.push([from, k - 1]);
  }
  return { tokens, sentenceTokenRanges };
}

/** Offset in the normalised text → index of the segment it lies in (binary search). */
function segmentLocator(spans: readonly { offset: number; length: number }[]): (offset: number) => number {
  const starts = spans.map((s, i) => ({ offset: s.offset, i })).filter((_, i) => (spans[i]?.length ?? 0) > 0);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid]?.offset ?? 0) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return starts[lo]?.i ?? 0;
  };
}

function toSentences(
  text: string,
  tokens: readonly Token[],
  ranges: readonly [number, number][],
  segments: readonly Segment[],
): Sentence[] {
  const pieces: [number, number][] = [];
  for (const [from, to] of ranges) {
    const first = tokens[from];
    const last = tokens[to];
    if (!first || !last) continue;
    if (to - from + 1 <= LONG_SENTENCE_WORDS || first.segment === last.segment) {
      pieces.push([from, to]);
      continue;
    }
    let start = from;
    for (let k = from + 1; k <= to + 1; k++)
      if (k > to || tokens[k]?.segment !== tokens[k - 1]?.segment) {
        pieces.push([start, k - 1]);
        start = k;
      }
  }
  return pieces.map(([from, to], index) => {
    const first = tokens[from] as Token;
    const last = tokens[to] as Token;
    // Opening marks (¿, a quote) directly before the first word belong to the sentence.
    const prevEnd = from > 0 ? (tokens[from - 1]?.offset ?? 0) + (tokens[from - 1]?.surface.length ?? 0) : 0;
    const lead = /(?:^|\s)([^\s\p{L}\p{N}]*)$/u.exec(text.slice(prevEnd, first.offset))?.[1] ?? "";
    const startOffset = first.offset - lead.length;
    // The sentence runs to its last word plus any closing marks before the next word.
    const nextOffset = tokens[to + 1]?.offset ?? text.length;
    let endOffset = last.offset + last.surface.length;
    const tail = /^[^\s\p{L}\p{N}]*/u.exec(text.slice(endOffset, nextOffset))?.[0] ?? "";
    endOffset += tail.length;
    const terms: string[] = [];
    for (let k = from; k <= to; k++) if (tokens[k]?.content) terms.push(tokens[k]?.term ?? "");
    return {
      index,
      text: text.slice(startOffset, endOffset),
      offset: startOffset,
      start: segments[first.segment]?.start ?? 0,
      end: segments[last.segment]?.end ?? 0,
      firstSegment: first.segment,
      lastSegment: last.segment,
      tokenFrom: from,
      tokenTo: to,
      terms,
      words: to - from + 1,
    };
  });
}
