import { DROPPED_IN_TOKEN, FOLDS, TOKEN_FLIPS } from "./unicode61-tables";

/**
 * The catalog's tokenizer: SQLite FTS5's `porter unicode61 remove_diacritics 2`, reproduced so the
 * in-memory BM25 index (bm25.ts) indexes and queries exactly the terms FTS5 did, and marks the words
 * highlight() marked (test/node/catalog-tokenizer.test.ts compares it with FTS5 on every code point
 * and on the bench corpus).
 *
 * - unicode61: a token is a run of token characters (letters, numbers, private use, and code points
 *   SQLite's Unicode tables leave unassigned: unicode61-tables.ts, generated from SQLite); the
 *   combining diacritics continue a token and are dropped from it; case is folded and accents are
 *   removed from Latin letters only (SQLite's tables, not NFD: "ø", "ß", "ﬁ", "ά" stay as they are).
 * - porter: SQLite's Porter stemmer (fts5_tokenize.c, public domain), ported here because it works on
 *   the token's UTF-8 bytes (a non-ASCII byte is a consonant; tokens under 3 or over 64 bytes are not
 *   stemmed), which no npm stemmer does: `stemmer` (wooorm) reads characters and differs on non-ASCII
 *   tokens and on SQLite's own rule variants ("ies" at a word's start, y after a vowel).
 * - FTS5 keeps at most 32,768 bytes of a token (FTS5_MAX_TOKEN_SIZE).
 *
 * A term is the stemmed token's UTF-8 bytes as a string of char codes 0-255 (ASCII tokens are plain
 * strings): byte-exact like FTS5's terms, even where a stem cut a character (termText decodes).
 */

/** Reads one token: its term (or word) and where it lies in the text (UTF-16 offsets, end exclusive). */
export type TokenSink = (term: string, start: number, end: number) => void;

const MAX_TOKEN_BYTES = 32_768;
const PORTER_MIN_BYTES = 3;
const PORTER_MAX_BYTES = 64;

const ASCII_TOKEN = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_TOKEN[c] = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) ? 1 : 0;

// 1: token character; 2: dropped inside a token; 0: separator. The BMP as a table, the rest by search.
const BMP_CLASS = new Uint8Array(0x10000);
BMP_CLASS.set(ASCII_TOKEN);
for (let i = 0; i < TOKEN_FLIPS.length && TOKEN_FLIPS[i]! < 0x10000; i += 2)
  BMP_CLASS.fill(1, TOKEN_FLIPS[i]!, Math.min(TOKEN_FLIPS[i + 1] ?? 0x10000, 0x10000));
for (const cp of DROPPED_IN_TOKEN) BMP_CLASS[cp] = 2;
const FOLD = new Map<number, number>();
for (let i = 0; i < FOLDS.length; i += 2) FOLD.set(FOLDS[i]!, FOLDS[i + 1]!);

function classOf(cp: number): number {
  if (cp < 0x10000) return BMP_CLASS[cp]!;
  let lo = 0;
  let hi = TOKEN_FLIPS.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (TOKEN_FLIPS[mid]! <= cp) lo = mid + 1;
    else hi = mid;
  }
  return lo & 1;
}

/** Calls `sink` for each token of `text`, in order. */
export function tokenize(text: string, sink: TokenSink): void {
  tokenizeWords(text, (word, start, end) => sink(termOf(word), start, end));
}

/**
 * Calls `sink` for each token of `text` with its word: folded, before stemming (`stem` makes it a
 * term). For a caller that caches terms by word: most of a token's cost is its term.
 */
export function tokenizeWords(text: string, sink: TokenSink): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    // Skip separators (a dropped diacritic cannot start a token).
    let start = -1;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 128) {
        if (ASCII_TOKEN[c]) {
          start = i;
          break;
        }
        i++;
      } else {
        const cp = codePointAt(text, i);
        if (classOf(cp) === 1) {
          start = i;
          break;
        }
        i += cp > 0xffff ? 2 : 1;
      }
    }
    if (start < 0) return;
    let ascii = true;
    let upper = false;
    let end = start;
    while (end < n) {
      const c = text.charCodeAt(end);
      if (c < 128) {
        if (!ASCII_TOKEN[c]) break;
        if (c >= 65 && c <= 90) upper = true;
        end++;
      } else {
        const cp = codePointAt(text, end);
        if (classOf(cp) === 0) break;
        ascii = false;
        end += cp > 0xffff ? 2 : 1;
      }
    }
    i = end;
    const word = !ascii ? foldedBytes(text, start, end) : upper ? text.slice(start, end).toLowerCase() : text.slice(start, end);
    sink(word, start, end);
  }
}

/** Every token of `text` (for marks and tests). */
export function tokens(text: string): Array<{ term: string; start: number; end: number }> {
  const out: Array<{ term: string; start: number; end: number }> = [];
  tokenize(text, (term, start, end) => out.push({ term, start, end }));
  return out;
}

/** A term as text (UTF-8 decoded; a byte a stem cut from a character reads as U+FFFD). */
export function termText(term: string): string {
  const bytes = Uint8Array.from(term, (ch) => ch.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

/** A lone surrogate is what SQLite reads from the UTF-8 the text is stored as: U+FFFD. */
function codePointAt(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c < 0xd800 || c > 0xdfff) return c;
  const d = text.charCodeAt(i + 1);
  if (c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) return ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
  return 0xfffd;
}

// Folded word → term, for queries and marks (an index build keeps its own): words repeat, and stemming
// is most of a token's cost. Bounded: the isolate is shared by every object in it.
const termCache = new Map<string, string>();
const TERM_CACHE_SIZE = 10_000;

function termOf(word: string): string {
  let term = termCache.get(word);
  if (term === undefined) {
    term = stem(word);
    if (termCache.size >= TERM_CACHE_SIZE) termCache.clear();
    termCache.set(word, term);
  }
  return term;
}

/** The token's characters folded and UTF-8 encoded, as a byte string; dropped diacritics left out. */
function foldedBytes(text: string, start: number, end: number): string {
  let out = "";
  for (let i = start; i < end;) {
    const raw = codePointAt(text, i);
    i += raw > 0xffff ? 2 : 1;
    if (raw < 128) {
      out += String.fromCharCode(raw >= 65 && raw <= 90 ? raw + 32 : raw);
      continue;
    }
    if (classOf(raw) === 2) continue;
    const cp = FOLD.get(raw) ?? raw;
    if (cp < 0x80) out += String.fromCharCode(cp);
    else if (cp < 0x800) out += String.fromCharCode(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
    else if (cp < 0x10000) out += String.fromCharCode(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    else out += String.fromCharCode(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  }
  return out;
}

// ---- SQLite's Porter stemmer, on bytes (fts5_tokenize.c: fts5PorterCb and its steps). ----

const buf = new Uint8Array(PORTER_MAX_BYTES + 8);
const A = 97,
  E = 101,
  I = 105,
  O = 111,
  U = 117,
  Y = 121,
  L = 108,
  S = 115,
  T = 116,
  Z = 122,
  W = 119,
  X = 120;

/** The term of a folded word (a byte string). */
export function stem(word: string): string {
  const bytes = word.length;
  if (bytes > PORTER_MAX_BYTES || bytes < PORTER_MIN_BYTES) return bytes > MAX_TOKEN_BYTES ? word.slice(0, MAX_TOKEN_BYTES) : word;
  for (let i = 0; i < bytes; i++) buf[i] = word.charCodeAt(i);
  let n = bytes;

  // Step 1a.
  if (buf[n - 1] === S) {
    if (buf[n - 2] === E) {
      if ((n > 4 && buf[n - 4] === S && buf[n - 3] === S) || (n > 3 && buf[n - 3] === I)) n -= 2;
      else n -= 1;
    } else if (buf[n - 2] !== S) n -= 1;
  }
  // Step 1b.
  const step1b = apply(STEP1B, n);
  if (step1b.fired) {
    n = step1b.n;
    const b2 = apply(STEP1B2, n);
    if (b2.fired) n = b2.n;
    else {
      const c = buf[n - 1]!;
      if (!isVowel(c, false) && c !== L && c !== S && c !== Z && c === buf[n - 2]) n--;
      else if (mEq1(n) && oStar(n)) buf[n++] = E;
    }
  } else n = step1b.n;
  // Step 1c.
  if (buf[n - 1] === Y && hasVowel(n - 1)) buf[n - 1] = I;
  n = apply(STEP2, n).n;
  n = apply(STEP3, n).n;
  n = apply(STEP4, n).n;
  // Step 5a.
  if (buf[n - 1] === E && (mGt1(n - 1) || (mEq1(n - 1) && !oStar(n - 1)))) n--;
  // Step 5b.
  if (n > 1 && buf[n - 1] === L && buf[n - 2] === L && mGt1(n - 1)) n--;
  return String.fromCharCode(...buf.subarray(0, n));
}

function isVowel(c: number, yIsVowel: boolean): boolean {
  return c === A || c === E || c === I || c === O || c === U || (yIsVowel && c === Y);
}

/** After `from`, past a vowel then a consonant: the index after that consonant, or 0. */
function gobbleVC(from: number, to: number, prevConsonant: boolean): number {
  let consonant = prevConsonant;
  let i = from;
  for (; i < to; i++) {
    consonant = !isVowel(buf[i]!, consonant);
    if (!consonant) break;
  }
  for (i++; i < to; i++) {
    consonant = !isVowel(buf[i]!, consonant);
    if (consonant) return i + 1;
  }
  return 0;
}

const mGt0 = (n: number) => gobbleVC(0, n, false) !== 0;
function mGt1(n: number): boolean {
  const at = gobbleVC(0, n, false);
  return at !== 0 && gobbleVC(at, n, true) !== 0;
}
function mEq1(n: number): boolean {
  const at = gobbleVC(0, n, false);
  return at !== 0 && gobbleVC(at, n, true) === 0;
}
/** Ends consonant-vowel-consonant, the last not w, x or y. */
function oStar(n: number): boolean {
  const last = buf[n - 1];
  if (last === W || last === X || last === Y) return false;
  let mask = 0;
  let consonant = false;
  for (let i = 0; i < n; i++) {
    consonant = !isVowel(buf[i]!, consonant);
    mask = ((mask << 1) | (consonant ? 1 : 0)) & 7;
  }
  return mask === 5;
}
function hasVowel(n: number): boolean {
  for (let i = 0; i < n; i++) if (isVowel(buf[i]!, i > 0)) return true;
  return false;
}
const sOrT = (n: number) => (buf[n - 1] === S || buf[n - 1] === T) && mGt1(n);

interface Rule {
  suffix: number[];
  output: number[];
  /** On the stem (what precedes the suffix); none: always. */
  when?: (stemLength: number) => boolean;
  /** Step 1b's rules that remove "ed"/"ing" report firing (the step's extra work follows). */
  fires?: boolean;
}
const codes = (s: string) => Array.from(s, (c) => c.charCodeAt(0));
const rules = (when: Rule["when"], pairs: ReadonlyArray<readonly [string, string]>, fires = false): Rule[] =>
  pairs.map(([suffix, output]) => ({ suffix: codes(suffix), output: codes(output), when, fires }));

// In SQLite's order: the first rule whose suffix ends the word (leaving a stem of at least one byte) decides.
const STEP1B: Rule[] = [
  ...rules(mGt0, [["eed", "ee"]]),
  ...rules(
    hasVowel,
    [
      ["ed", ""],
      ["ing", ""],
    ],
    true,
  ),
];
const STEP1B2: Rule[] = rules(
  undefined,
  [
    ["at", "ate"],
    ["bl", "ble"],
    ["iz", "ize"],
  ],
  true,
);
const STEP2: Rule[] = rules(mGt0, [
  ["ational", "ate"],
  ["tional", "tion"],
  ["enci", "ence"],
  ["anci", "ance"],
  ["izer", "ize"],
  ["logi", "log"],
  ["bli", "ble"],
  ["alli", "al"],
  ["entli", "ent"],
  ["eli", "e"],
  ["ousli", "ous"],
  ["ization", "ize"],
  ["ation", "ate"],
  ["ator", "ate"],
  ["alism", "al"],
  ["iveness", "ive"],
  ["fulness", "ful"],
  ["ousness", "ous"],
  ["aliti", "al"],
  ["iviti", "ive"],
  ["biliti", "ble"],
]);
const STEP3: Rule[] = rules(mGt0, [
  ["ical", "ic"],
  ["ness", ""],
  ["icate", "ic"],
  ["iciti", "ic"],
  ["ful", ""],
  ["ative", ""],
  ["alize", "al"],
]);
const STEP4: Rule[] = [
  ...rules(mGt1, [
    ["al", ""],
    ["ance", ""],
    ["ence", ""],
    ["er", ""],
    ["ic", ""],
    ["able", ""],
    ["ible", ""],
    ["ant", ""],
    ["ement", ""],
    ["ment", ""],
    ["ent", ""],
  ]),
  ...rules(sOrT, [["ion", ""]]),
  ...rules(mGt1, [
    ["ou", ""],
    ["ism", ""],
    ["ate", ""],
    ["iti", ""],
    ["ous", ""],
    ["ive", ""],
    ["ize", ""],
  ]),
];

function endsWith(n: number, suffix: readonly number[]): boolean {
  if (n <= suffix.length) return false;
  for (let i = 0; i < suffix.length; i++) if (buf[n - suffix.length + i] !== suffix[i]) return false;
  return true;
}

function apply(step: readonly Rule[], n: number): { n: number; fired: boolean } {
  for (const r of step) {
    if (!endsWith(n, r.suffix)) continue;
    const stemLength = n - r.suffix.length;
    if (r.when && !r.when(stemLength)) return { n, fired: false };
    buf.set(r.output, stemLength);
    return { n: stemLength + r.output.length, fired: r.fires === true };
  }
  return { n, fired: false };
}
