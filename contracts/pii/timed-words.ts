import type { Segment } from "../transcript";

/** A word of a segment as the detectors see it, with where it sits in the segment's text. */
export interface TimedWord {
  text: string;
  start: number;
  end: number;
  /** Character range of the word in the segment's `text`; null when the engine's words and its text disagree. */
  at: { from: number; to: number } | null;
}

/**
 * A segment's words with their timings. An engine that gives words gives their timings; one that
 * gives only segment text (some hosted engines) has its text split at white space and the
 * segment's span shared out evenly between the pieces, as the clip timeline does
 * (gpu-runner/services/clip-generation/timeline.ts `wordsOf`): an entity's time is then an
 * estimate, as good as the segment's length allows.
 */
export function timedWordsOf(segment: Segment): TimedWord[] {
  if (segment.words && segment.words.length > 0) {
    const located = locateInText(
      segment.text,
      segment.words.map((w) => w.word),
    );
    return segment.words.map((w, i) => ({ text: w.word.trim(), start: w.start, end: w.end, at: located?.[i] ?? null }));
  }
  const pieces = [...segment.text.matchAll(/\S+/g)];
  const step = pieces.length > 0 ? (segment.end - segment.start) / pieces.length : 0;
  return pieces.map((m, i) => {
    // The placeholder replaces the word, not the punctuation around it ("Paix," → "[ADDRESS],").
    const { lead, trail } = punctuationAround(m[0]);
    const bare = lead + trail < m[0].length;
    return {
      text: m[0],
      start: segment.start + i * step,
      end: segment.start + (i + 1) * step,
      at: bare ? { from: m.index + lead, to: m.index + m[0].length - trail } : { from: m.index, to: m.index + m[0].length },
    };
  });
}

/**
 * Where each word sits in the text, searched in order (case-insensitively, ignoring punctuation
 * an engine writes on one side only), so the text can be redacted where it stands and keeps its own
 * punctuation and spacing; null when some word is not found, and the text is then rebuilt from the words.
 */
function locateInText(text: string, words: readonly string[]): Array<{ from: number; to: number }> | null {
  const lower = text.toLowerCase();
  const out: Array<{ from: number; to: number }> = [];
  let cursor = 0;
  for (const raw of words) {
    const word = raw.trim().toLowerCase();
    const { lead, trail } = punctuationAround(word);
    const core = word.slice(lead, word.length - trail);
    if (core === "") {
      out.push({ from: cursor, to: cursor });
      continue;
    }
    const at = lower.indexOf(core, cursor);
    // A word far ahead of the cursor means the text and the words have drifted apart.
    if (at < 0 || lower.slice(cursor, at).trim().length > 3) return null;
    out.push({ from: at, to: at + core.length });
    cursor = at + core.length;
  }
  return out;
}

/**
 * How many characters of punctuation lead and trail a word: those stay in the text around its
 * placeholder ("Paix," → "[ADDRESS],"). An opening bracket or "+" is the value's own ("(415)",
 * "+44"), and so is a closing bracket when the word opened one.
 */
export function punctuationAround(word: string): { lead: number; trail: number } {
  const lead = /^[^\p{L}\p{N}(+[]*/u.exec(word)![0].length;
  const closing = /[([]/.test(word) ? /[^\p{L}\p{N})\]]*$/u : /[^\p{L}\p{N}]*$/u;
  const trail = Math.min(closing.exec(word)![0].length, word.length - lead);
  return { lead, trail };
}
