import type { PiiEntityType } from "../redaction";

/** An entity a detector found: its type and the original words it covers (end exclusive). */
export interface EntitySpan {
  type: PiiEntityType;
  from: number;
  to: number;
}

/** What every detector reads: the segment's words, its language, and views of them built once. */
export interface DetectionInput {
  /** The words as the transcript has them. */
  words: readonly string[];
  language: string;
  /** Two-letter primary language, lower case ("en", "es"). */
  lang: string;
}

export const overlaps = (a: { from: number; to: number }, b: { from: number; to: number }): boolean => a.from < b.to && b.from < a.to;

/** The `n` words before word `from`, lower case, joined by spaces. */
export const wordsBefore = (words: readonly string[], from: number, n: number): string =>
  words
    .slice(Math.max(0, from - n), from)
    .join(" ")
    .toLowerCase();

/** Whether a cue (a lower-cased regular expression over the words) is said within `before` words before `from` or `after` words after `to`. */
export function cueNear(words: readonly string[], from: number, to: number, cue: RegExp, before: number, after = 0): boolean {
  const window = [...words.slice(Math.max(0, from - before), from), ...words.slice(to, to + after)].join(" ").toLowerCase();
  return cue.test(window);
}
