/**
 * Transcript words back into text, for every script. Chinese, Japanese, Thai, Lao, Khmer and
 * Burmese are written without spaces between words, so a speech engine's word tokens in those
 * scripts must be joined with nothing between them ("日本語です", not "日本 語 です"); a line's
 * width in those scripts is about twice its character count, since their characters are set full-width.
 */

/** A character of a script written without spaces between words (Korean spaces its words, so Hangul is not here). */
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** CJK punctuation and full-width forms: never a space before them (nor after an opening bracket). */
const FULL_WIDTH_PUNCT = /[\u3000-\u303F\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65]/u;
const OPENING = /[「『（【〈《〔［｛“‘(\[{]/u;

/** Latin punctuation that closes up to the word before it. */
const CLOSING_LATIN = /^[,.!?;:…%)\]}]/;

/** Characters set full-width (two columns): CJK ideographs, kana, Hangul, CJK punctuation, full-width forms. */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303F\uFF01-\uFF60\uFFE0-\uFFE6]/u;

/** Whether two adjacent words are written with a space between them. */
export function spaceBetween(before: string, after: string): boolean {
  const last = lastChar(before);
  const first = after.charAt(0);
  if (!last || !first) return false;
  if (CLOSING_LATIN.test(after) || FULL_WIDTH_PUNCT.test(first) || FULL_WIDTH_PUNCT.test(last) || OPENING.test(last)) return false;
  return !(UNSPACED.test(last) && UNSPACED.test(first));
}

/** Words (trimmed; empty ones dropped) joined as the language writes them. */
export function joinWords(words: readonly string[]): string {
  let text = "";
  for (const raw of words) {
    const word = raw.trim();
    if (!word) continue;
    text = text && spaceBetween(text, word) ? `${text} ${word}` : text + word;
  }
  return text;
}

/** The width of a line in columns of a Latin character: a full-width character counts two. */
export function columns(text: string): number {
  if (!WIDE.test(text)) return text.length;
  let n = 0;
  for (const ch of text) n += WIDE.test(ch) ? 2 : 1;
  return n;
}

/** Whether a word ends a sentence, in Latin or CJK punctuation (closing quotes and brackets after it allowed). */
export function endsSentence(word: string): boolean {
  return /[.?!。？！]["'”’)\]」』）]*$/u.test(word);
}

const WORDS = new Intl.Segmenter(undefined, { granularity: "word" });

/** A piece of text a line may break before; `spaceBefore` when a space separates it from the piece before. */
export interface LineUnit {
  text: string;
  spaceBefore: boolean;
}

/**
 * Text as the pieces a line may break between: after every space, and between the words of a
 * script written without spaces (ICU's dictionary word breaks). Punctuation stays with the word
 * before it, so no line starts with a comma or "。", and an opening bracket stays with the word after it.
 */
export function lineUnits(text: string): LineUnit[] {
  // Spaced text breaks at its spaces alone: no need for the segmenter (10× slower on subtitle cues).
  if (!UNSPACED.test(text))
    return text
      .split(/\s+/)
      .filter(Boolean)
      .map((t, i) => ({ text: t, spaceBefore: i > 0 }));
  const units: LineUnit[] = [];
  let space = false;
  for (const { segment, isWordLike } of WORDS.segment(text.trim())) {
    if (/^\s+$/u.test(segment)) {
      space = true;
      continue;
    }
    const prev = units[units.length - 1];
    const joins = prev && !space && !(isWordLike && UNSPACED.test(lastChar(prev.text)) && UNSPACED.test(segment.charAt(0)));
    if (prev && joins) prev.text += segment;
    else units.push({ text: segment, spaceBefore: space && prev !== undefined });
    space = false;
  }
  return units;
}

/** A locale `Intl.Segmenter` accepts: the language tag when valid, else `und` (root rules). */
export function segmenterLocale(language: string | null | undefined): string {
  try {
    return Intl.Segmenter.supportedLocalesOf([(language ?? "").trim()])[0] ?? "und";
  } catch {
    return "und";
  }
}

/** Japanese words written in hiragana alone are mostly particles and endings ("って", "ます"), never a topic. */
export function isKanaOnly(word: string): boolean {
  return /^\p{Script=Hiragana}+$/u.test(word);
}

/** The last character (a whole surrogate pair), without spreading the whole string: joins call this on growing text. */
function lastChar(s: string): string {
  const tail = [...s.slice(-2)];
  return tail[tail.length - 1] ?? "";
}
