import isEmail from "validator/lib/isEmail.js";
import { overlaps, type DetectionInput, type EntitySpan } from "./entity-span";
import { coreOf } from "./spoken-numbers";
import { buildView, wordsOfRange, type ViewToken } from "./view";

/**
 * Email addresses, written ("john.smith@example.com") or spoken ("john dot smith at example dot
 * com", "arroba", "arobase", "punto", "point"). A spoken "at" becomes "@" only when a spoken or
 * written domain with a dot follows it before any other "at" ("meet me at john dot smith at
 * example dot com" has one address, not two); candidates are checked by validator's isEmail.
 * An address whose "at" the recogniser lost is still found after an email cue (misheardAddresses).
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
  return [...spans, ...misheardAddresses(input.words, spans)];
}

/** Words that announce an email address. */
const EMAIL_CUE = /^(?:e-?mail(?:ed|ing)?|mail|address|write|correo|courriel|adresse|e-?mailadres|indirizzo)$/;
/** Words between a cue and the address that are not part of it. */
const LEAD_IN = new Set(
  "me us him her them at to is it's its was on my his our your the a an and send write or es est à a ist è é is".split(" "),
);
/** How many words before its domain an address that was misheard may take. */
const LOCAL_PART_WORDS = 4;

/**
 * An address the recogniser misheard ("sarah dot taylor at mail dot com" written "said that sarah
 * taylor had nail dot com"): its "at" is lost, so the pattern above cannot read it, but a spoken
 * domain ending ("dot com") still follows an email cue a few words before. Then the words from after
 * the cue (its lead-in words skipped) to the domain's end, at most four before the domain's last
 * "dot", are redacted as the address: they are what is left of it.
 */
function misheardAddresses(words: readonly string[], found: readonly EntitySpan[]): EntitySpan[] {
  const cores = words.map(coreOf);
  const spans: EntitySpan[] = [];
  for (let i = 1; i + 1 < cores.length; i++) {
    if (!DOT.has(cores[i]!) || !TLDS.has(cores[i + 1]!) || DOT.has(cores[i + 2] ?? "")) continue;
    const cue = cores.slice(Math.max(0, i - 10), i).findLastIndex((c) => EMAIL_CUE.test(c));
    if (cue < 0) continue;
    let from = Math.max(Math.max(0, i - 10) + cue + 1, i - LOCAL_PART_WORDS);
    while (from < i - 1 && LEAD_IN.has(cores[from]!)) from++;
    const span: EntitySpan = { type: "EMAIL", from, to: i + 2 };
    if (!found.some((f) => overlaps(f, span)) && !spans.some((f) => overlaps(f, span))) spans.push(span);
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
