import isEmail from "validator/lib/isEmail.js";
import type { DetectionInput, EntitySpan } from "./entity-span";
import { coreOf } from "./spoken-numbers";
import { buildView, wordsOfRange, type ViewToken } from "./view";

/**
 * Email addresses, written ("john.smith@example.com") or spoken ("john dot smith at example dot
 * com", "arroba", "arobase", "punto", "point"). A spoken "at" becomes "@" only when a spoken or
 * written domain with a dot follows it before any other "at" ("meet me at john dot smith at
 * example dot com" has one address, not two); candidates are checked by validator's isEmail.
 */
const AT = new Set(["at", "arroba", "arobase", "chiocciola", "apenstaartje", "@"]);
const DOT = new Set(["dot", "punto", "point", "punkt", "ponto", "punt"]);
const SYMBOLS: Record<string, string> = { underscore: "_", dash: "-", hyphen: "-", guion: "-", tiret: "-" };
/** How many words a spoken domain may take. */
const DOMAIN_WINDOW = 6;

export function detectEmails(input: DetectionInput, numberTokens: readonly ViewToken[]): EntitySpan[] {
  const view = buildView(spokenEmailTokens(numberTokens));
  const spans: EntitySpan[] = [];
  for (const m of view.text.matchAll(/[\p{L}\p{N}._%+-]+@[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/gu)) {
    const candidate = m[0].replace(/^[._-]+|[._-]+$/g, "");
    if (!isEmail(candidate, { allow_utf8_local_part: true })) continue;
    const start = m.index + m[0].indexOf(candidate);
    const words = wordsOfRange(view, start, start + candidate.length);
    if (words) spans.push({ type: "EMAIL", ...words });
  }
  return spans;
}

/**
 * A domain's last label: a spoken "at" is an address's only when a domain ending in one of these
 * follows it at once ("at example dot com", "at example.co.uk"), so in "john dot smith at example
 * dot com" the "at" before "john" is not taken ("john dot smith" ends in no top-level domain).
 */
const TLDS = new Set(
  "com org net edu gov mil int info biz io co me tv app dev ai uk us ca au nz ie es fr de it pt nl be ch at lu dk se no fi pl cz gr ru eu mx ar br cl co pe jp cn in za".split(
    " ",
  ),
);

/** The tokens with spoken "at", "dot", "underscore" made into glued symbols where an address is being said. */
function spokenEmailTokens(tokens: readonly ViewToken[]): ViewToken[] {
  const cores = tokens.map((t) => coreOf(t.text));
  const atIndexes = new Set<number>();
  cores.forEach((c, i) => {
    if (AT.has(c) && i > 0 && domainFollows(cores, i + 1)) atIndexes.add(i);
  });
  return tokens.map((t, i) => {
    const c = cores[i]!;
    if (atIndexes.has(i)) return { ...t, text: "@", glue: true };
    if (DOT.has(c) && nearAddress(i, atIndexes)) return { ...t, text: ".", glue: true };
    const symbol = SYMBOLS[c];
    if (symbol !== undefined && nearAddress(i, atIndexes)) return { ...t, text: symbol, glue: true };
    return t;
  });
}

/** Whether a domain (label, then "dot" label …, ending in a top-level domain; or one written token) starts at `i`. */
function domainFollows(cores: readonly string[], i: number): boolean {
  const written = /^[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)*\.(\p{L}{2,})$/u.exec(cores[i] ?? "");
  if (written) return TLDS.has(written[1]!);
  let j = i;
  let labels = 0;
  while (j < cores.length && j < i + DOMAIN_WINDOW * 2 && /^[\p{L}\p{N}-]+$/u.test(cores[j]!)) {
    labels++;
    if (labels > 1 && TLDS.has(cores[j]!) && !DOT.has(cores[j + 1] ?? "")) return true;
    if (!DOT.has(cores[j + 1] ?? "")) return false;
    j += 2;
  }
  return false;
}

/** Spoken punctuation is read as a symbol only around an address's "at", so "dot" elsewhere stays a word. */
const nearAddress = (i: number, ats: ReadonlySet<number>): boolean => [...ats].some((a) => Math.abs(a - i) <= DOMAIN_WINDOW * 2);
