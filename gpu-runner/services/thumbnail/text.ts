import * as stopword from "stopword";
import type { ClipTranscript } from "../../../contracts/clips";

/**
 * What a cover says and what a text-to-image model is asked for, from the transcript alone: the
 * keywords are the most repeated content words (stop words of the transcript's language removed),
 * the title the shortest sentence that carries most of them.
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
  const isContent = (w: string) => w.length >= 3 && !stop.has(w) && !FILLERS.has(w) && !/^\d+$/.test(w);
  const counts = new Map<string, { n: number; first: number }>();
  let index = 0;
  for (const s of transcript.segments) {
    for (const w of tokens(s.text)) {
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
  return { title: titleFrom(transcript, new Map([...counts].map(([w, c]) => [w, c.n])), keywords, isContent), keywords };
}

function tokens(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}']+/u)
    .map((w) => w.replace(/^'+|'+$/g, ""))
    .filter(Boolean);
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
): string {
  const weight = new Map(keywords.map((k) => [k, (counts.get(k) ?? 1) - 1] as const).filter(([, w]) => w > 0));
  const sentences = transcript.segments.flatMap((s) => s.text.split(/(?<=[.!?])\s+/)).map((s) => s.trim());
  let best: { text: string; score: number } | null = null;
  for (const sentence of sentences) {
    const words = sentence.split(/\s+/).filter(Boolean);
    if (words.length < 3 || words.length > 14) continue;
    const distinct = [...new Set(tokens(sentence).filter((w) => weight.has(w)))];
    if (distinct.length < 2) continue;
    const score = distinct.reduce((n, w) => n + weight.get(w)!, 0) / Math.sqrt(words.length);
    if (!best || score > best.score) best = { text: sentence, score };
  }
  if (best) {
    let words = best.text.replace(/[.!?,;:]+$/, "").split(/\s+/);
    if (words.length > MAX_TITLE_WORDS) {
      words = words.slice(0, MAX_TITLE_WORDS);
      while (words.length > 3 && !isContent(tokens(words.at(-1)!)[0] ?? "")) words.pop();
    }
    const title = words.join(" ").replace(/[,;:]+$/, "");
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
