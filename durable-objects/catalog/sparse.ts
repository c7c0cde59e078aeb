import { eng } from "stopword";

/**
 * The sparse half of catalog search: BM25 over the project catalog object's FTS5 table `chunks_fts` (porter stemmer,
 * unicode61 tokenizer), and the marks that show which words of a chunk matched.
 *
 * A query becomes an OR of its words, each quoted (so FTS5 syntax in a query — `AND`, `NEAR`, `*`,
 * quotes — is read as words, never as operators): BM25 then ranks chunks with more, rarer query words
 * first, and a chunk matching only some words still ranks, as a search box user expects.
 */

/** At most this many distinct words of a query are searched (a pasted paragraph stays cheap). */
export const MAX_QUERY_TERMS = 32;

/**
 * The words a query is searched by: lower-cased Unicode words, distinct, in order, split where
 * unicode61 splits (so "don't" is "don", "t"), without English stop words ("how", "the", "does"),
 * which match nearly every chunk and only add noise to the ranking; a query of stop words only keeps them.
 */
export function queryTerms(query: string): string[] {
  const words = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = words.filter((w) => !STOP.has(w) && !(w.length === 1 && /\p{L}/u.test(w)));
  return (content.length > 0 ? content : words).slice(0, MAX_QUERY_TERMS);
}

const STOP = new Set<string>(eng);

/** The FTS5 MATCH expression for a query; null when it has no words (only punctuation). */
export function ftsMatchExpression(query: string): string | null {
  return orOf(queryTerms(query));
}

/** The MATCH expression for any of these words, each quoted. */
export function orOf(terms: readonly string[]): string | null {
  return terms.length === 0 ? null : terms.map((t) => `"${t.replace(/"/g, "")}"`).join(" OR ");
}

/**
 * How many of a query's words a sparse hit must contain to join a hybrid fusion: more than half of
 * them (1 of 1, 2 of 2 or 3, 3 of 4 or 5). A chunk matching one incidental word of a paraphrased question is noise that reciprocal
 * rank fusion would otherwise weigh like the dense list's real answer (bench/search-quality.ts).
 */
export function requiredCoverage(terms: readonly string[]): number {
  return Math.floor(terms.length / 2) + 1;
}

const OPEN = "\u0001";
const CLOSE = "\u0002";
/** highlight()'s markers: control characters that transcripts never contain (they are stripped on the way in). */
export const HIGHLIGHT_OPEN = OPEN;
export const HIGHLIGHT_CLOSE = CLOSE;

/** Character ranges of the plain text, from FTS5 highlight() output with the markers above. */
export function marksFromHighlight(highlighted: string): { text: string; marks: Array<[number, number]> } {
  const marks: Array<[number, number]> = [];
  let text = "";
  let open = -1;
  for (const ch of highlighted) {
    if (ch === OPEN) open = text.length;
    else if (ch === CLOSE) {
      if (open >= 0) marks.push([open, text.length]);
      open = -1;
    } else text += ch;
  }
  return { text, marks };
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/** The text, HTML-escaped, with each mark in `<mark>…</mark>`. */
export function markedHtml(text: string, marks: ReadonlyArray<readonly [number, number]>): string {
  let out = "";
  let at = 0;
  for (const [a, b] of marks) {
    out += escapeHtml(text.slice(at, a)) + "<mark>" + escapeHtml(text.slice(a, b)) + "</mark>";
    at = b;
  }
  return out + escapeHtml(text.slice(at));
}
