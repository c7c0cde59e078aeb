import type { AnalysedText, Sentence } from "./analysis";
import { dropOpeners } from "./text-fit";

/**
 * How much a sentence reads like a social hook, from features any reader can check:
 *   +2   a question (it ends with ? ？ ؟, or opens with ¿)
 *   +1   a number (a digit, or a number word wink tags NUM)
 *   +1   it speaks to the viewer (you, your, yours, yourself, you're, you'll, you've, you'd)  [English]
 *   +1   a strong opening: an imperative (the first word, after spoken openers, is a verb not
 *        ending in -ing or -ed) or a question word (why, how, what, who, when, where, which)    [English]
 *   +0.5 an exclamation (! ！ ¡)
 *   +relevance: its TextRank score divided by the best one (0..1), so a hook is still on topic
 *   −1   it needs cutting to fit the hook limit
 *   −2   fewer than 4 words (an interjection is not a hook)
 * In other languages only the marked features count (question, number, exclamation).
 */

const SECOND_PERSON = new Set(["you", "your", "yours", "yourself", "yourselves", "you're", "you'll", "you've", "you'd", "ya"]);
const QUESTION_WORDS = new Set(["why", "how", "what", "who", "when", "where", "which"]);

export function hookScore(a: AnalysedText, s: Sentence, relevance: number, max: number): number {
  const text = s.text;
  let score = 0;
  if (/[?？؟]\s*$/u.test(text) || /^¿/u.test(text)) score += 2;
  if (/[!！]\s*$/u.test(text) || /^¡/u.test(text)) score += 0.5;
  let number = /\p{Nd}/u.test(text);
  let second = false;
  for (let k = s.tokenFrom; k <= s.tokenTo; k++) {
    const t = a.tokens[k];
    if (!t) continue;
    if (t.numeric) number = true;
    if (a.method === "wink-english" && SECOND_PERSON.has(t.lower.replace("’", "'"))) second = true;
  }
  if (number) score += 1;
  if (second) score += 1;
  if (a.method === "wink-english" && strongOpening(a, s)) score += 1;
  score += relevance;
  if (dropOpeners(text, a.locale).length > max) score -= 1;
  if (s.words < 4) score -= 2;
  return score;
}

function strongOpening(a: AnalysedText, s: Sentence): boolean {
  const rest = dropOpeners(s.text, a.locale);
  const offset = s.offset + (s.text.length - rest.length);
  for (let k = s.tokenFrom; k <= s.tokenTo; k++) {
    const t = a.tokens[k];
    if (!t || t.offset < offset) continue;
    return QUESTION_WORDS.has(t.lower) || (t.pos === "VERB" && !/(?:ing|ed)$/u.test(t.lower));
  }
  return false;
}
