import { PII_ENTITY_TYPES, placeholderOf, type PiiEntityType, type RedactedEntity } from "../redaction";
import type { Segment, Word } from "../transcript";
import { joinWords } from "../text-words";
import { detectAddresses } from "./address";
import { detectCodes } from "./code-entities";
import { detectDatesOfBirth } from "./date-of-birth";
import { detectEmails } from "./email";
import { overlaps, type DetectionInput, type EntitySpan } from "./entity-span";
import { detectPeople } from "./person";
import { numberTokens } from "./spoken-numbers";
import { timedWordsOf, type TimedWord } from "./timed-words";

/**
 * Finds personal data in a transcript's segments and replaces each entity's words by one
 * placeholder word (`[EMAIL]`, `[PERSON]`), in the text and in the words; the entities found are
 * returned with where they were (segment, original word indexes, seconds), never their values.
 *
 * Runs in the Worker and in Node: pure TypeScript plus pure-JS libraries (validator,
 * libphonenumber-js, compromise). What each family finds and how is in its module; the order
 * below decides between overlapping finds (an email's "at" is not a phone's, a card is not a
 * phone). An entity is found within one segment: one said across a segment boundary (a pause in
 * the middle of a phone number) is found in part or not at all.
 */
export const PII_ENGINE = "local-pii";
export const PII_MODEL = "rules-v1+validator-13.15.35+libphonenumber-js-1.13.16+compromise-14.17.0";

const DETECTORS: ReadonlyArray<{
  types: readonly PiiEntityType[];
  detect: (input: DetectionInput, numbers: ReturnType<typeof numberTokens>) => EntitySpan[];
}> = [
  { types: ["EMAIL"], detect: detectEmails },
  { types: ["IBAN", "CARD_NUMBER", "NATIONAL_ID", "PHONE"], detect: detectCodes },
  { types: ["DATE_OF_BIRTH"], detect: detectDatesOfBirth },
  { types: ["ADDRESS"], detect: detectAddresses },
  { types: ["PERSON"], detect: (input) => detectPeople(input) },
];

export interface RedactionResult {
  segments: Segment[];
  entities: RedactedEntity[];
  engine: string;
  model: string;
}

export function redactSegments(
  segments: readonly Segment[],
  opts: { language: string; entities?: readonly PiiEntityType[] },
): RedactionResult {
  const wanted = new Set(opts.entities ?? PII_ENTITY_TYPES);
  const entities: RedactedEntity[] = [];
  const out = segments.map((segment) => {
    const words = timedWordsOf(segment);
    const spans = findEntities(
      words.map((w) => w.text),
      opts.language,
      wanted,
    );
    for (const s of spans)
      entities.push({
        type: s.type,
        segmentId: segment.id,
        start: words[s.from]!.start,
        end: words[s.to - 1]!.end,
        wordStart: s.from,
        wordEnd: s.to,
      });
    return spans.length === 0 ? segment : replaced(segment, words, spans);
  });
  return { segments: out, entities, engine: PII_ENGINE, model: PII_MODEL };
}

/** The entities of one segment's words, in word order, none overlapping another. */
export function findEntities(words: readonly string[], language: string, wanted: ReadonlySet<PiiEntityType>): EntitySpan[] {
  const input: DetectionInput = { words, language, lang: language.slice(0, 2).toLowerCase() };
  const numbers = numberTokens(words, language);
  const kept: EntitySpan[] = [];
  for (const d of DETECTORS) {
    if (!d.types.some((t) => wanted.has(t))) continue;
    for (const span of d.detect(input, numbers)) {
      if (!wanted.has(span.type) || span.to <= span.from || kept.some((k) => overlaps(k, span))) continue;
      kept.push(span);
    }
  }
  return kept.sort((a, b) => a.from - b.from);
}

/** The segment with each entity's words replaced by its placeholder, in the words (when it has them) and the text. */
function replaced(segment: Segment, words: readonly TimedWord[], spans: readonly EntitySpan[]): Segment {
  const placeholderWord = (s: EntitySpan): Word => {
    const first = segment.words?.[s.from];
    return {
      word: placeholderOf(s.type),
      start: words[s.from]!.start,
      end: words[s.to - 1]!.end,
      ...(first?.speaker !== undefined ? { speaker: first.speaker } : {}),
    };
  };
  const newWords: Word[] = [];
  if (segment.words && segment.words.length > 0) {
    let i = 0;
    for (const s of spans) {
      newWords.push(...segment.words.slice(i, s.from), placeholderWord(s));
      i = s.to;
    }
    newWords.push(...segment.words.slice(i));
  }
  const text = words.every((w) => w.at !== null) ? spliceText(segment.text, words, spans) : joinWords(newWords.map((w) => w.word));
  return { ...segment, text, ...(segment.words && segment.words.length > 0 ? { words: newWords } : {}) };
}

/** The text with each entity's characters (first word's start to last word's end) replaced by its placeholder. */
function spliceText(text: string, words: readonly TimedWord[], spans: readonly EntitySpan[]): string {
  let out = "";
  let cursor = 0;
  for (const s of spans) {
    const from = words[s.from]!.at!.from;
    const to = words[s.to - 1]!.at!.to;
    out += text.slice(cursor, from) + placeholderOf(s.type);
    cursor = to;
  }
  return out + text.slice(cursor);
}
