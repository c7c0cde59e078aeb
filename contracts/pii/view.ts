/**
 * A view of a segment's words as one string for the detectors' patterns: each token stands for a
 * range of the original words (a spoken number of four words is one token "4111"), so a match in
 * the string maps back to the words it covers.
 */
export interface ViewToken {
  text: string;
  /** First original word index the token stands for. */
  from: number;
  /** One past the last original word index. */
  to: number;
  /** Joined to its neighbours without a space (a spoken "dot" or "at" in an email address). */
  glue?: boolean;
}

export interface TextView {
  text: string;
  tokens: readonly ViewToken[];
  /** Character range of each token in `text`. */
  spans: ReadonlyArray<{ start: number; end: number }>;
}

export function buildView(tokens: readonly ViewToken[]): TextView {
  let text = "";
  const spans: Array<{ start: number; end: number }> = [];
  tokens.forEach((t, i) => {
    if (i > 0 && !t.glue && !tokens[i - 1]!.glue) text += " ";
    spans.push({ start: text.length, end: text.length + t.text.length });
    text += t.text;
  });
  return { text, tokens, spans };
}

/** The original words a character range of the view covers (end exclusive); null when it covers none. */
export function wordsOfRange(view: TextView, start: number, end: number): { from: number; to: number } | null {
  let from = Infinity;
  let to = -Infinity;
  view.spans.forEach((s, i) => {
    if (s.start < end && s.end > start) {
      from = Math.min(from, view.tokens[i]!.from);
      to = Math.max(to, view.tokens[i]!.to);
    }
  });
  return Number.isFinite(from) ? { from, to } : null;
}

/** One token per word, as written. */
export const wordTokens = (words: readonly string[]): ViewToken[] => words.map((text, i) => ({ text, from: i, to: i + 1 }));
