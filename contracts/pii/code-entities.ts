import { isCardNumber } from "./card-number";
import { codeRuns, windows, type CodeToken, type CodeWindow } from "./code-runs";
import { wordsBefore, type DetectionInput, type EntitySpan } from "./entity-span";
import { isIban } from "./iban";
import { ID_CUE, isNationalId } from "./national-id";
import { isPhoneNumber } from "./phone";
import type { ViewToken } from "./view";

/**
 * IBANs, card numbers, national IDs and phone numbers: every window of every code run is checked
 * against the checksummed types, longest first (an IBAN holds digit groups that could pass as
 * something shorter); what is left of a run in one piece is then checked as a phone number, whole
 * or without its first or last tokens, so the digits of a card that fails its Luhn check are not
 * re-read as a phone number from the middle.
 */
const CHECKED: ReadonlyArray<{ type: EntitySpan["type"]; test: (w: CodeWindow, cue: string | null, lang: string) => boolean }> = [
  { type: "IBAN", test: (w) => isIban(w) },
  { type: "CARD_NUMBER", test: (w) => isCardNumber(w) },
  { type: "NATIONAL_ID", test: (w, cue, lang) => isNationalId(w, cue, lang) },
];

export function detectCodes(input: DetectionInput, numberTokens: readonly ViewToken[]): EntitySpan[] {
  const spans: EntitySpan[] = [];
  for (const run of codeRuns(numberTokens)) {
    const found: Array<CodeWindow & { type: EntitySpan["type"] }> = [];
    for (const w of windows(run, 9, 34)) {
      // A number that needs a cue must also stand alone: no digits right before or after it in the run.
      const alone = !/\d/.test(run[w.first - 1]?.compact ?? "") && !/\d/.test(run[w.last]?.compact ?? "");
      const cue = alone ? wordsBefore(input.words, w.from, 8) : null;
      const hit = CHECKED.find((c) => c.test(w, cue !== null && ID_CUE.test(cue) ? cue : null, input.lang));
      if (hit) found.push({ ...w, type: hit.type });
    }
    found.sort((a, b) => b.compact.length - a.compact.length);
    const taken: Array<{ first: number; last: number }> = [];
    for (const f of found) {
      if (taken.some((t) => f.first < t.last && t.first < f.last)) continue;
      taken.push(f);
      spans.push({ type: f.type, from: f.from, to: f.to });
    }
    for (const gap of gapsOf(run, taken)) {
      const phone = phoneIn(gap, input.lang);
      if (phone) spans.push({ type: "PHONE", from: phone.from, to: phone.to });
    }
  }
  return spans;
}

/** The parts of a run no window was taken from. */
function gapsOf(run: readonly CodeToken[], taken: ReadonlyArray<{ first: number; last: number }>): CodeToken[][] {
  const gaps: CodeToken[][] = [];
  let gap: CodeToken[] = [];
  run.forEach((t, i) => {
    if (taken.some((w) => i >= w.first && i < w.last)) {
      if (gap.length) gaps.push(gap);
      gap = [];
    } else gap.push(t);
  });
  if (gap.length) gaps.push(gap);
  return gaps;
}

/**
 * The gap as a phone number, or without one or two short tokens (one or two characters) at either
 * end: a stray word the recogniser heard as a number ("… three four eight to thirty two"). A gap of 13 digits or more that fails whole is a card or
 * account number that failed its check, and none of its parts is read as a phone number.
 */
function phoneIn(gap: readonly CodeToken[], lang: string): CodeWindow | null {
  const digitCount = gap.reduce((n, t) => n + t.compact.replace(/\D/g, "").length, 0);
  const maxDrop = digitCount >= 13 ? 0 : Math.min(2, gap.length - 1);
  for (let drop = 0; drop <= maxDrop; drop++) {
    for (let left = 0; left <= drop; left++) {
      const part = gap.slice(left, gap.length - (drop - left));
      const dropped = [...gap.slice(0, left), ...gap.slice(gap.length - (drop - left))];
      if (dropped.some((t) => t.compact.length > 2)) continue;
      // One letter heard inside a spoken number ("a") is dropped; a code with letters in it is no phone number.
      const digits = part.filter((t) => /^\d+$/.test(t.compact));
      if (digits.length === 0 || part.length - digits.length > 1 || part.some((t) => !/^(\d+|\p{L})$/u.test(t.compact))) continue;
      const w: CodeWindow = {
        compact: digits.map((t) => t.compact).join(""),
        raw: part.map((t) => t.raw).join(" "),
        plus: part[0]!.plus,
        from: part[0]!.from,
        to: part.at(-1)!.to,
        first: 0,
        last: part.length,
      };
      if (isPhoneNumber(w, lang)) return { ...w, from: digits[0]!.from, to: digits.at(-1)!.to };
    }
  }
  return null;
}
