import type { ViewToken } from "./view";

/**
 * Runs of code-like tokens: digit groups, single letters and short capitalised groups, as card
 * numbers, IBANs, ID numbers and phone numbers are written ("DE89 3704 0044", "(415) 555-2671",
 * "12345678Z") or spoken, once number words are digits ("d e eight nine three seven…"). The
 * detectors test windows of a run against their checksums, so a run may hold more than one entity.
 */
export interface CodeToken {
  /** Letters and digits only, upper case. */
  compact: string;
  /** The token as written, without surrounding brackets and punctuation ("123-45-6789"). */
  raw: string;
  /** A "+" or "plus" before the digits (an international phone number). */
  plus: boolean;
  from: number;
  to: number;
}

/** A date (12/03/1985, 1985-03-12) is not part of a code: the date of birth detector reads it. */
const DATE_LIKE = /^(?:\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}[./-]\d{1,2}[./-]\d{1,2})$/;
const CODE_LIKE = /^[\p{L}\p{N}]+(?:[-./][\p{L}\p{N}]+)*$/u;

export function codeRuns(tokens: readonly ViewToken[]): CodeToken[][] {
  const runs: CodeToken[][] = [];
  let run: CodeToken[] = [];
  let plus = false;
  const close = () => {
    if (run.length > 0) runs.push(run);
    run = [];
  };
  for (const t of tokens) {
    const raw = t.text.trim();
    if (/^(plus|\+)$/i.test(raw)) {
      close();
      plus = true;
      continue;
    }
    const leadingPlus = raw.startsWith("+");
    const body = raw.replace(/^[(+[]+/, "").replace(/[)\],.;:!?]+$/, "");
    const endsSentence = /[,;:!?]$/.test(raw) || (/\.$/.test(raw) && !/^\p{L}\.$/u.test(raw));
    if (body === "" || DATE_LIKE.test(body) || !CODE_LIKE.test(body.replace(/\)/g, "")) || !isCodeLike(body)) {
      close();
      plus = false;
      continue;
    }
    run.push({ raw: body, compact: body.replace(/[^\p{L}\p{N}]/gu, "").toUpperCase(), plus: plus || leadingPlus, from: t.from, to: t.to });
    plus = false;
    if (endsSentence) close();
  }
  close();
  return runs;
}

const isCodeLike = (body: string): boolean => /\d/.test(body) || /^\p{L}$/u.test(body) || /^\p{Lu}{2,5}$/u.test(body);

/** A window of a run: its tokens, joined. */
export interface CodeWindow {
  compact: string;
  /** The tokens as written, joined by a space. */
  raw: string;
  plus: boolean;
  from: number;
  to: number;
  /** Token indexes in the run (end exclusive). */
  first: number;
  last: number;
}

/** Every contiguous window of a run whose compact length is within `min`..`max`. */
export function* windows(run: readonly CodeToken[], min: number, max: number): Generator<CodeWindow> {
  for (let i = 0; i < run.length; i++) {
    let compact = "";
    for (let j = i; j < run.length; j++) {
      compact += run[j]!.compact;
      if (compact.length > max) break;
      const raw = run
        .slice(i, j + 1)
        .map((t) => t.raw)
        .join(" ");
      if (compact.length >= min) yield { compact, raw, plus: run[i]!.plus, from: run[i]!.from, to: run[j]!.to, first: i, last: j + 1 };
    }
  }
}
