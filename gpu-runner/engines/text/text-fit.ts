/**
 * Fitting the transcript's own words into the product's limits without inventing any: text is only
 * ever cut (at a word boundary, preferring a sentence end, then a clause mark, then a space) and
 * trimmed at its ends; the one cosmetic change is upper-casing a title's or hook's first letter.
 */

const SENTENCE_END = /[.!?。！？؟।]/u;
const CLAUSE_MARK = /[,;:–—、，；：]/u;
const FULL_WIDTH_MARK = /[。！？、，；：]/u;
/** Marks that would dangle at the end of a cut: an opening quote or bracket, a comma, a dash. */
const TRAILING_FRAGMENT = /[\s,;:\-–—(\[{"'“‘«、，；：]+$/u;
/**
 * English words that leave a cut dangling ("… cooked with the"). Dropped from the end of cut text
 * only (a whole sentence keeps its words).
 */
const DANGLING_EN = new Set(
  (
    "a an the and or but nor of to with without for in on at by from so that which who whom whose as is are was were be been " +
    "if then than because about into onto over under your my our their his her its this these those we you they i he she it " +
    "not very just also really has have had do does did will would can could should may might must"
  ).split(" "),
);
/**
 * Spoken openers that carry no content, dropped from the start of titles and hooks: "So, today we…"
 * → "Today we…". The second set are openers only when a comma follows ("Like, …" but not "Like
 * this dish").
 */
const OPENERS_EN = new Set(["so", "and", "but", "okay", "ok", "um", "uh", "erm", "yeah", "anyway", "alright"]);
const OPENERS_WITH_COMMA_EN = new Set(["well", "like", "right", "also", "now", "yes"]);

const HEADING_MIN_KEEP = 1 / 3;

const segmenters = new Map<string, Intl.Segmenter>();
function wordSegmenter(locale: string): Intl.Segmenter {
  let s = segmenters.get(locale);
  if (!s) {
    s = new Intl.Segmenter(locale, { granularity: "word" });
    segmenters.set(locale, s);
  }
  return s;
}

const isEnglish = (locale: string): boolean => locale.toLowerCase().split(/[-_]/)[0] === "en";

/**
 * `text` if it fits in `max` characters, else its longest prefix that ends on a word boundary
 * (Unicode word segmentation, so scripts without spaces cut between words too), preferring a
 * sentence end, then a clause mark, then a space, as long as that keeps `minKeepShare` of `max`
 * (half; a third for headings, where a short clause reads better than a long fragment).
 * A cut is trimmed of dangling marks and (English) dangling function words. Only a single word
 * longer than `max` is cut inside the word.
 */
export function cutAtWordBoundary(text: string, max: number, locale = "en", minKeepShare = 0.5): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const window = t.slice(0, max + 64);
  const boundaries: number[] = [];
  for (const seg of wordSegmenter(locale).segment(window)) if (seg.index > 0 && seg.index <= max) boundaries.push(seg.index);
  const minKeep = Math.floor(max * minKeepShare);
  const pick = (ok: (p: number) => boolean): number | undefined => {
    for (let k = boundaries.length - 1; k >= 0; k--) {
      const p = boundaries[k] as number;
      if (p < minKeep) return undefined;
      if (ok(p)) return p;
    }
    return undefined;
  };
  const spaceAt = (p: number): boolean => /\s/u.test(t.charAt(p));
  // After a mark, where a space follows it (or the mark is a full-width one, which takes no space).
  const afterMark = (mark: RegExp) => (p: number) => {
    const ch = t.charAt(p - 1);
    return mark.test(ch) && (spaceAt(p) || FULL_WIDTH_MARK.test(ch));
  };
  const cut =
    pick(afterMark(SENTENCE_END)) ?? pick(afterMark(CLAUSE_MARK)) ?? pick(spaceAt) ?? boundaries[boundaries.length - 1] ?? hardCut(t, max);
  const trimmed = trimCut(t.slice(0, cut), locale);
  return trimmed.length > 0 ? trimmed : t.slice(0, cut).trim();
}

/** Cuts inside one long word, never between the two halves of a surrogate pair. */
function hardCut(t: string, max: number): number {
  const code = t.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

function trimCut(s: string, locale: string): string {
  let out = s.replace(TRAILING_FRAGMENT, "");
  if (!isEnglish(locale)) return out;
  for (;;) {
    const m = /\s+([\p{L}']+)$/u.exec(out);
    if (!m || !DANGLING_EN.has((m[1] ?? "").toLowerCase())) return out;
    out = out.slice(0, m.index).replace(TRAILING_FRAGMENT, "");
  }
}

/** Drops spoken openers ("So, …", "Okay so …") from the start; the rest is unchanged. */
export function dropOpeners(text: string, locale = "en"): string {
  if (!isEnglish(locale)) return text.trim();
  let out = text.trim();
  for (;;) {
    const m = /^([\p{L}']+)(\s*,)?\s+/u.exec(out);
    const word = (m?.[1] ?? "").toLowerCase();
    if (!m || !(OPENERS_EN.has(word) || (m[2] !== undefined && OPENERS_WITH_COMMA_EN.has(word)))) return out;
    const rest = out.slice(m[0].length);
    if (!/\p{L}/u.test(rest)) return out;
    out = rest;
  }
}

/** The first letter upper-cased (the only change a title or hook makes to the transcript's words). */
export function capitalised(text: string, locale = "en"): string {
  const i = text.search(/\p{L}/u);
  if (i < 0) return text;
  const ch = String.fromCodePoint(text.codePointAt(i) ?? 0);
  return text.slice(0, i) + ch.toLocaleUpperCase(locale) + text.slice(i + ch.length);
}

/**
 * A sentence as a heading (title, chapter title, hook): openers dropped, cut to `max`, a closing
 * full stop removed (a question or exclamation mark stays), first letter upper-cased.
 */
export function asHeading(sentence: string, max: number, locale = "en"): string {
  const core = dropOpeners(sentence, locale);
  const cut = cutAtWordBoundary(core, max, locale, HEADING_MIN_KEEP)
    .replace(/[.。]+$/u, "")
    .trim();
  return capitalised(cut.length > 0 ? cut : cutAtWordBoundary(sentence, max, locale), locale);
}

/** Whether `asHeading` keeps the whole sentence (no cut needed). */
export function fitsAsHeading(sentence: string, max: number, locale = "en"): boolean {
  return dropOpeners(sentence, locale).length <= max;
}
