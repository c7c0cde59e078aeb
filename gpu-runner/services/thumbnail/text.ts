import * as stopword from "stopword";
import type { ClipTranscript } from "../../../contracts/clips";
import { columns, isKanaOnly, segmenterLocale } from "../../../contracts/text-words";

/**
 * What a cover says and what a text-to-image model is asked for, from the transcript alone: the
 * keywords are the most repeated content words (stop words of the transcript's language removed),
 * the title the shortest sentence that carries most of them. Words are ICU's word breaks, so
 * Chinese, Japanese and Thai, written without spaces, have words too.
 */

/** ISO 639-1 → the `stopword` package's ISO 639-3 lists, for the languages the transcriber knows best. */
const STOPWORD_LISTS: Record<string, readonly string[]> = {
  en: stopword.eng,
  es: stopword.spa,
  fr: stopword.fra,
  de: stopword.deu,
  it: stopword.ita,
  pt: stopword.por,
  ca: stopword.cat,
  nl: stopword.nld,
  ja: stopword.jpn,
  zh: stopword.zho,
  ko: stopword.kor,
  th: stopword.tha,
};

/** Spoken fillers no stop word list has: they are frequent in speech and never a topic. */
const FILLERS = new Set(
  "yeah yes okay ok um uh uhm hmm like really just gonna wanna gotta know think going get got thing things lot way well right actually basically kind sort stuff maybe also one two see say said".split(
    " ",
  ),
);

export interface Topic {
  title: string;
  keywords: string[];
}

const MAX_TITLE_WORDS = 9;

export function topicOf(transcript: ClipTranscript, maxKeywords = 6): Topic {
  const lang = (transcript.language ?? "en").slice(0, 2).toLowerCase();
  const stop = new Set([...(STOPWORD_LISTS[lang] ?? STOPWORD_LISTS["en"]!)].map((w) => w.toLowerCase()));
  // Three columns: a one- or two-letter Latin word or a single CJK character is too short to be a topic.
  const isContent = (w: string) => columns(w) >= 3 && !stop.has(w) && !FILLERS.has(w) && !/^[\d.,]+$/.test(w) && !isKanaOnly(w);
  const words = wordsIn(segmenterLocale(transcript.language));
  const counts = new Map<string, { n: number; first: number }>();
  let index = 0;
  for (const s of transcript.segments) {
    for (const { word: w } of words(s.text)) {
      if (!isContent(w)) continue;
      const c = counts.get(w) ?? { n: 0, first: index++ };
      c.n++;
      counts.set(w, c);
    }
  }
  const keywords = [...counts.entries()]
    .sort((a, b) => b[1].n - a[1].n || a[1].first - b[1].first)
    .slice(0, maxKeywords)
    .map(([w]) => w);
  return { title: titleFrom(transcript, new Map([...counts].map(([w, c]) => [w, c.n])), keywords, isContent, words), keywords };
}

interface WordAt {
  /** Lower case, apostrophes at its ends trimmed. */
  word: string;
  /** Where the word ends in the text. */
  end: number;
}

/** The words of a text (ICU word breaks: letters and digits, apostrophes inside kept), where each ends. */
function wordsIn(locale: string): (text: string) => WordAt[] {
  const segmenter = new Intl.Segmenter(locale, { granularity: "word" });
  return (text) =>
    [...segmenter.segment(text)]
      .filter((s) => s.isWordLike)
      .map((s) => ({ word: s.segment.toLowerCase().replace(/^'+|'+$/g, ""), end: s.index + s.segment.length }))
      .filter((w) => w.word !== "");
}

/**
 * The sentence of 3–14 words with the most keyword weight per word, a keyword weighing its repeats
 * (a word said once is not a topic); cut to MAX_TITLE_WORDS at a content word. No sentence with two
 * repeated keywords: the top keywords, title-cased.
 */
function titleFrom(
  transcript: ClipTranscript,
  counts: ReadonlyMap<string, number>,
  keywords: readonly string[],
  isContent: (w: string) => boolean,
  words: (text: string) => WordAt[],
): string {
  const weight = new Map(keywords.map((k) => [k, (counts.get(k) ?? 1) - 1] as const).filter(([, w]) => w > 0));
  const sentences = transcript.segments.flatMap((s) => s.text.split(/(?<=[.!?])\s+|(?<=[。！？])/u)).map((s) => s.trim());
  let best: { text: string; words: WordAt[]; score: number } | null = null;
  for (const sentence of sentences) {
    const ws = words(sentence);
    if (ws.length < 3 || ws.length > 14) continue;
    const distinct = [...new Set(ws.map((w) => w.word).filter((w) => weight.has(w)))];
    if (distinct.length < 2) continue;
    const score = distinct.reduce((n, w) => n + weight.get(w)!, 0) / Math.sqrt(ws.length);
    if (!best || score > best.score) best = { text: sentence, words: ws, score };
  }
  if (best) {
    let text = best.text;
    if (best.words.length > MAX_TITLE_WORDS) {
      let n = MAX_TITLE_WORDS;
      while (n > 3 && !isContent(best.words[n - 1]!.word)) n--;
      text = text.slice(0, best.words[n - 1]!.end);
    }
    const title = text.replace(/[.!?,;:。！？、]+$/u, "").trim();
    return title.charAt(0).toUpperCase() + title.slice(1);
  }
  return keywords
    .slice(0, 3)
    .map((k) => k.charAt(0).toUpperCase() + k.slice(1))
    .join(" · ");
}

/** The text-to-image prompt: subject from the keywords, no lettering (models spell badly; titles are set separately). */
export function coverPrompt(topic: Topic, variant: number): string {
  const styles = ["cinematic photograph, shallow depth of field", "bold editorial illustration", "bright studio photograph"];
  const subject = topic.keywords.length > 0 ? topic.keywords.join(", ") : topic.title;
  return `Video cover image about ${subject}. Theme: "${topic.title}". ${styles[variant % styles.length]}, one clear focal subject, high contrast, vivid colour, no text, no letters, no watermark.`;
}
