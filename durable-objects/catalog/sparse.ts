import { eng } from "stopword";

/**
 * The sparse half of catalog search: the words a query is searched by, and how its hits are shown.
 * The catalog object ranks chunks holding any of the words by BM25 (bm25.ts, stemmed as FTS5's
 * porter unicode61 stemmed them): chunks with more, rarer query words first, and a chunk matching only
 * some words still ranks, as a search box user expects. No query syntax: every word is a word.
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

/**
 * How many of a query's words a sparse hit must contain to join a hybrid fusion: more than half of
 * them (1 of 1, 2 of 2 or 3, 3 of 4 or 5). A chunk matching one incidental word of a paraphrased question is noise that reciprocal
 * rank fusion would otherwise weigh like the dense list's real answer (bench/search-quality.ts).
 */
export function requiredCoverage(terms: readonly string[]): number {
  return Math.floor(terms.length / 2) + 1;
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
