import { conversationLine } from "../../../contracts/speakers";
import { setImmediate } from "node:timers/promises";
import type { VisualChunk } from "../../../contracts/transcript";
import {
  DESCRIPTION_MAX,
  LONG_SYNOPSIS_MAX,
  METADATA_KEYWORDS_MAX,
  MetadataDraftSchema,
  SEO_DESCRIPTION_MAX,
  SHORT_SYNOPSIS_MAX,
  SOCIAL_HOOK_MAX,
  SUMMARY_KEYWORD_COUNT,
  SummaryDraftSchema,
  TITLE_MAX,
  type Chapter,
  type GeneratedBy,
  type IabCategory,
  type MetadataDraft,
  type SummaryDraft,
} from "../../../contracts/understanding";
import { StepFailure } from "../../../contracts/step-failure";
import { analyse, type AnalysedText, type Sentence } from "./analysis";
import { chapterStarts } from "./chapters";
import { hookScore } from "./hooks";
import { classifyIabTokens } from "./iab";
import type { MetadataRequest, SummaryRequest, TextDocument, TextEngine } from "./interface";
import { exactlyKeywords, rankKeywords, type Keyword } from "./keyphrases";
import { asHeading, cutAtWordBoundary, fitsAsHeading } from "./text-fit";
import { rankOrder, textRank } from "./textrank";

/**
 * `local-extractive`: metadata and summaries made only of the transcript's own words, offline. It
 * selects and arranges; it never writes. Every method below is deterministic.
 *
 * Analysis (analysis.ts): English through wink-nlp (tokens, sentences, part of speech, stems);
 * any other language through Unicode segmentation and the `stopword` lists, without part of speech
 * (the model id says both). Sentence ranking: TextRank (textrank.ts) over content-word terms.
 * Sentences of fewer than 4 words ("Okay.", "Right, yes.") are not selected while longer ones
 * exist; a sentence whose text repeats an already selected one is skipped.
 *
 * - Title: the best-ranked of the top 3 sentences that fits in 70 characters whole (after spoken
 *   openers such as "So," are dropped); if none does, the top sentence cut at a word boundary
 *   (text-fit.ts: a sentence end, else a clause mark, else a space). A closing full stop is
 *   dropped and the first letter upper-cased.
 * - Description: sentences in rank order while they fit in 300 characters together, shown in
 *   transcript order. Where two shown pieces are not adjacent and the first does not end a
 *   sentence (speech without punctuation), " … " marks the omission between them; it is the only
 *   character added anywhere.
 * - Chapters (chapters.ts): TextTiling boundaries at segment starts, at least 60 s apart (more in a
 *   long talk), one chapter under 3 minutes. A chapter's title is its own best sentence: TextRank
 *   over the chapter's sentences alone, then the title rule above; a title already used by an
 *   earlier chapter moves on to the chapter's next sentence.
 * - Keywords (keyphrases.ts): retext-keywords keyphrases and compromise's named people, places and
 *   organisations, ranked by occurrences; metadata keeps the top 15 (when fewer than 5 are found,
 *   padded like a summary's, without repeats); a summary has exactly 5 (see `exactlyKeywords`).
 * - Categories (iab.ts): the local IAB classifier on the transcript's stems; English only (its
 *   evidence words are English), so other languages get no categories rather than a guess.
 * - Short synopsis (280) and long synopsis (2000): as the description; the long one takes
 *   sentences from each chapter in turn (every chapter's best, then every chapter's second …) so
 *   all topics are covered, shown in transcript order.
 * - SEO descriptions (3 × 160): (1) sentences in rank order; (2) the same without the top
 *   sentence; (3) sentences ordered by how many of the top 10 keywords' terms they contain. Further
 *   candidates, if two coincide: single sentences in rank order. Distinct when the transcript has
 *   enough sentences; otherwise the list repeats from its start.
 * - Social hooks (3 × 100): the sentences with the highest hook score (hooks.ts: questions,
 *   numbers, "you", imperatives and question words, relevance), as headings cut at word
 *   boundaries; distinct, repeating only when the transcript has fewer than 3 sentences.
 * - Visual chunks: `visualChunksUsed` lists the `index` of every chunk whose time range overlaps a
 *   sentence of the short or long synopsis. Chunk summaries are machine descriptions, not the
 *   speaker's words, so none of their text is used.
 * A transcript without a single word fails the step (not retryable): there is nothing to draw from.
 */

const VERSIONS =
  "wink-nlp-2.4.0,wink-eng-lite-web-model-1.8.1,compromise-14.17.0,retext-keywords-8.0.2,retext-pos-5.0.0;non-english:intl-segmenter+stopword-3.1.5";
export const LOCAL_EXTRACTIVE_MODEL = `textrank+texttiling+keyphrases+iab-lexicon/${VERSIONS}`;

/**
 * Between two selected pieces that are not adjacent in the transcript and where the first does not
 * end a sentence (speech without punctuation): an omission mark, so two pieces are not glued into a
 * sentence nobody said.
 */
const OMISSION = " … ";
const ENDS_SENTENCE = /[.!?。！？؟।]["'”’)\]]*$/u;

/** Sentences shorter than this are selected only when nothing longer exists. */
const MIN_WORDS = 4;
const TITLE_CANDIDATES = 3;
const SEO_KEYWORDS = 10;

export class LocalExtractiveTextEngine implements TextEngine {
  readonly generatedBy: GeneratedBy = { engine: "local-extractive", model: LOCAL_EXTRACTIVE_MODEL, kind: "extractive" };

  async metadata({ doc, signal }: MetadataRequest): Promise<MetadataDraft> {
    const x = await extract(doc, signal);
    const used = new Set<string>();
    const chapters: Chapter[] = x.chapters.map((c) => {
      const title = headingFrom(x, c.order, used);
      used.add(title.toLowerCase());
      return { start: c.start, segmentId: x.a.segments[c.segment]?.id ?? 0, title };
    });
    const ranked = x.keywords.slice(0, METADATA_KEYWORDS_MAX).map((k) => k.text);
    // Too few keyphrases: padded as a summary's are, but a repeat is dropped (metadata has no minimum).
    const keywords =
      ranked.length >= SUMMARY_KEYWORD_COUNT ? ranked : [...new Set(exactlyKeywords(x.a, x.keywords, SUMMARY_KEYWORD_COUNT))];
    return MetadataDraftSchema.parse({
      title: headingFrom(x, x.order, new Set()),
      description: pack(x, x.order, DESCRIPTION_MAX).text,
      keywords,
      categories: x.categories,
      chapters,
    });
  }

  async summarize({ doc, visualChunks, signal }: SummaryRequest): Promise<SummaryDraft> {
    const x = await extract(doc, signal);
    const short = pack(x, x.order, SHORT_SYNOPSIS_MAX);
    // Who talks is part of what a conversation is about: the long synopsis says it first.
    const who = conversationLine(doc.speakers ?? []);
    const lead = who && who.length + 1 < LONG_SYNOPSIS_MAX / 4 ? `${who} ` : "";
    const long = pack(x, roundRobin(x.chapters.map((c) => c.order)), LONG_SYNOPSIS_MAX - lead.length);
    return SummaryDraftSchema.parse({
      shortSynopsis: short.text,
      longSynopsis: lead + long.text,
      seoDescriptions: seoDescriptions(x),
      socialHooks: socialHooks(x),
      keywords: exactlyKeywords(x.a, x.keywords, SUMMARY_KEYWORD_COUNT),
      classification: x.categories,
      visualChunksUsed: chunksOverlapping(visualChunks, [...short.sentences, ...long.sentences]),
    });
  }
}

interface Extract {
  a: AnalysedText;
  scores: number[];
  /** Selectable sentences (see MIN_WORDS), best first. */
  order: number[];
  keywords: Keyword[];
  categories: IabCategory[];
  chapters: { segment: number; start: number; order: number[] }[];
}

/** Everything both services draw from; yields to the event loop between stages (an hour takes about a second). */
async function extract(doc: TextDocument, signal: AbortSignal): Promise<Extract> {
  signal.throwIfAborted();
  const a = analyse(doc.segments, doc.language);
  if (a.sentences.length === 0)
    throw new StepFailure("processing_failed", "local-extractive: the transcript has no words to draw from", false);
  await pause(signal);
  const scores = textRank(a.sentences.map((s) => s.terms));
  const selectable = selectableSentences(a);
  const order = rankOrder(scores).filter((i) => selectable.has(i));
  await pause(signal);
  const keywords = rankKeywords(a);
  await pause(signal);
  const categories = a.method === "wink-english" ? classifyIabTokens(a.tokens) : [];
  await pause(signal);
  const lastEnd = a.segments.reduce((m, s) => Math.max(m, s.end), 0);
  const duration = doc.durationSec > 0 ? doc.durationSec : lastEnd;
  const chapters = chaptersWithSentences(a, chapterStarts(a, duration)).map((c) => {
    const long = c.sentences.filter((i) => selectable.has(i));
    const ids = long.length > 0 ? long : c.sentences;
    const local = textRank(ids.map((i) => a.sentences[i]?.terms ?? []));
    return { segment: c.segment, start: c.start, order: rankOrder(local).map((k) => ids[k] as number) };
  });
  signal.throwIfAborted();
  return { a, scores, order, keywords, categories, chapters };
}

async function pause(signal: AbortSignal): Promise<void> {
  await setImmediate();
  signal.throwIfAborted();
}

function selectableSentences(a: AnalysedText): Set<number> {
  const long = a.sentences.filter((s) => s.words >= MIN_WORDS).map((s) => s.index);
  return new Set(long.length > 0 ? long : a.sentences.map((s) => s.index));
}

/**
 * Each chapter's sentences (a sentence belongs to the chapter its first segment is in). A chapter
 * left without a sentence (only empty segments) is merged into the one before it, or the first
 * chapter takes over the second's.
 */
function chaptersWithSentences(a: AnalysedText, starts: readonly { segment: number; start: number }[]) {
  const chapters = starts.map((s) => ({ ...s, sentences: [] as number[] }));
  for (const s of a.sentences) {
    let k = chapters.length - 1;
    while (k > 0 && (chapters[k]?.segment ?? 0) > s.firstSegment) k--;
    chapters[k]?.sentences.push(s.index);
  }
  const kept: typeof chapters = [];
  for (const c of chapters) {
    const prev = kept[kept.length - 1];
    if (prev && (c.sentences.length === 0 || prev.sentences.length === 0)) prev.sentences.push(...c.sentences);
    else kept.push(c);
  }
  return kept;
}

/** The title rule (see the module's documentation) over sentences in preference order, avoiding `used` titles. */
function headingFrom(x: Extract, preference: readonly number[], used: ReadonlySet<string>): string {
  const locale = x.a.locale;
  const texts = (preference.length > 0 ? preference : x.order).map((i) => x.a.sentences[i]?.text ?? "").filter(Boolean);
  const fresh: string[] = [];
  for (const t of texts) {
    if (fresh.length === TITLE_CANDIDATES) break;
    if (!used.has(asHeading(t, TITLE_MAX, locale).toLowerCase())) fresh.push(t);
  }
  const pool = fresh.length > 0 ? fresh : texts.slice(0, TITLE_CANDIDATES);
  const whole = pool.find((t) => fitsAsHeading(t, TITLE_MAX, locale));
  return asHeading(whole ?? pool[0] ?? x.a.text, TITLE_MAX, locale);
}

/**
 * Sentences taken in `preference` order while they fit in `max` together, shown in transcript
 * order, joined by a space (or `OMISSION`); a repeated sentence text is taken once. If not even the
 * first fits, it is cut at a word boundary.
 */
function pack(x: Extract, preference: readonly number[], max: number): { text: string; sentences: Sentence[] } {
  const chosen: Sentence[] = [];
  const texts = new Set<string>();
  // Budgeted with the longer joint (the omission mark) so the joined text always fits.
  let length = -OMISSION.length;
  for (const i of preference) {
    const s = x.a.sentences[i];
    if (!s || texts.has(s.text.toLowerCase())) continue;
    if (length + OMISSION.length + s.text.length > max) continue;
    chosen.push(s);
    texts.add(s.text.toLowerCase());
    length += OMISSION.length + s.text.length;
  }
  if (chosen.length === 0) {
    const first = x.a.sentences[preference[0] ?? x.order[0] ?? 0];
    if (!first) return { text: cutAtWordBoundary(x.a.text, max, x.a.locale), sentences: [] };
    return { text: cutAtWordBoundary(first.text, max, x.a.locale), sentences: [first] };
  }
  chosen.sort((p, q) => p.index - q.index);
  let text = chosen[0]?.text ?? "";
  for (let k = 1; k < chosen.length; k++) {
    const prev = chosen[k - 1] as Sentence;
    const next = chosen[k] as Sentence;
    const glued = next.index === prev.index + 1 || ENDS_SENTENCE.test(prev.text);
    text += (glued ? " " : OMISSION) + next.text;
  }
  return { text, sentences: chosen };
}

/** Every list's first, then every list's second, … */
function roundRobin(lists: readonly (readonly number[])[]): number[] {
  const out: number[] = [];
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let r = 0; r < longest; r++) for (const l of lists) if (r < l.length) out.push(l[r] as number);
  return out;
}

function seoDescriptions(x: Extract): string[] {
  const topTerms = new Set(x.keywords.slice(0, SEO_KEYWORDS).flatMap((k) => k.terms));
  const coverage = (i: number) => new Set(x.a.sentences[i]?.terms.filter((t) => topTerms.has(t))).size;
  const byCoverage = [...x.order].sort((p, q) => coverage(q) - coverage(p) || x.order.indexOf(p) - x.order.indexOf(q));
  const candidates = [
    pack(x, x.order, SEO_DESCRIPTION_MAX).text,
    pack(x, x.order.slice(1), SEO_DESCRIPTION_MAX).text,
    pack(x, byCoverage, SEO_DESCRIPTION_MAX).text,
    ...x.order.map((i) => cutAtWordBoundary(x.a.sentences[i]?.text ?? "", SEO_DESCRIPTION_MAX, x.a.locale)),
  ];
  return threeDistinct(candidates);
}

function socialHooks(x: Extract): string[] {
  const best = x.order.reduce((m, i) => Math.max(m, x.scores[i] ?? 0), 0) || 1;
  const scored = x.order.map((i, rank) => {
    const s = x.a.sentences[i] as Sentence;
    return { i, rank, score: hookScore(x.a, s, (x.scores[i] ?? 0) / best, SOCIAL_HOOK_MAX) };
  });
  scored.sort((p, q) => q.score - p.score || p.rank - q.rank);
  return threeDistinct(scored.map(({ i }) => asHeading(x.a.sentences[i]?.text ?? "", SOCIAL_HOOK_MAX, x.a.locale)));
}

/** The first three distinct non-empty candidates; repeated from the start when there are fewer. */
function threeDistinct(candidates: readonly string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    const key = c.trim().toLowerCase();
    if (key === "" || seen.has(key)) continue;
    seen.add(key);
    out.push(c.trim());
    if (out.length === 3) return out;
  }
  for (let i = 0; out.length > 0 && out.length < 3; i++) out.push(out[i] as string);
  return out;
}

function chunksOverlapping(chunks: readonly VisualChunk[], sentences: readonly Sentence[]): number[] {
  const used = new Set<number>();
  for (const c of chunks) if (sentences.some((s) => c.start < s.end && c.end > s.start)) used.add(c.index);
  return [...used].sort((p, q) => p - q);
}
