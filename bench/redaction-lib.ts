import { PII_ENTITY_TYPES, type PiiEntityType, type RedactedEntity } from "../contracts/redaction";
import type { Segment } from "../contracts/transcript";

/**
 * Scoring for bench/redaction.ts, and the pattern-only baseline it is measured against.
 *
 * A planted entity is found when a redacted entity of its type overlaps it (in words for the text
 * form, in seconds for the spoken one); a redacted entity is right when it overlaps a planted
 * entity of its type. Recall and precision per type, and over all types; and recall by a redaction
 * of any type (a card number's digits redacted as an IBAN's are gone all the same).
 */
export interface Planted {
  type: PiiEntityType;
  segmentId: number;
  /** Words (text form) or seconds (spoken form), end exclusive. */
  from: number;
  to: number;
}

export interface TypeScore {
  planted: number;
  found: number;
  /** Planted entities covered by a redaction of any type (for privacy what counts: the value is gone). */
  foundAnyType: number;
  redacted: number;
  right: number;
}

export type Scores = Record<PiiEntityType | "ALL", TypeScore>;

const empty = (): TypeScore => ({ planted: 0, found: 0, foundAnyType: 0, redacted: 0, right: 0 });

/** `by` picks the axis: word indexes or seconds. */
export function score(planted: readonly Planted[], redacted: readonly RedactedEntity[], by: "words" | "seconds"): Scores {
  const scores = Object.fromEntries([...PII_ENTITY_TYPES, "ALL"].map((t) => [t, empty()])) as Scores;
  const span = (e: RedactedEntity) => (by === "words" ? { from: e.wordStart, to: e.wordEnd } : { from: e.start, to: e.end });
  const covers = (p: Planted, e: RedactedEntity) => p.segmentId === e.segmentId && span(e).from < p.to && p.from < span(e).to;
  const hit = (p: Planted, e: RedactedEntity) => p.type === e.type && covers(p, e);
  for (const p of planted) {
    const found = redacted.some((e) => hit(p, e));
    const covered = redacted.some((e) => covers(p, e));
    for (const k of [p.type, "ALL"] as const) {
      scores[k].planted++;
      if (found) scores[k].found++;
      if (covered) scores[k].foundAnyType++;
    }
  }
  for (const e of redacted) {
    const right = planted.some((p) => hit(p, e));
    for (const k of [e.type, "ALL"] as const) {
      scores[k].redacted++;
      if (right) scores[k].right++;
    }
  }
  return scores;
}

/**
 * The baseline: plain regular expressions over the segment's text as written, the way a redaction
 * that only matches patterns works. No spoken numbers, no checksums, no context cues, no names.
 */
const BASELINE: ReadonlyArray<{ type: PiiEntityType; pattern: RegExp }> = [
  { type: "EMAIL", pattern: /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g },
  { type: "IBAN", pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g },
  { type: "CARD_NUMBER", pattern: /\b(?:\d[ -]?){12,18}\d\b/g },
  {
    type: "NATIONAL_ID",
    pattern: /\b\d{3}-\d{2}-\d{4}\b|\b[A-Z]{2} ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b|\b\d{8}[A-Z]\b|\b[A-Z]{6}\d{2}[A-Z]\d{2}[A-Z]\d{3}[A-Z]\b/g,
  },
  { type: "PHONE", pattern: /(?:\+\d{1,3}[ -]?)?(?:\(\d{2,4}\)|\d{2,4})[ .-]?\d{3,4}[ .-]?\d{3,4}\b/g },
  {
    type: "DATE_OF_BIRTH",
    pattern:
      /\b\d{1,2}\/\d{1,2}\/\d{4}\b|\b(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2},? \d{4}\b|\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|December) \d{4}\b/gi,
  },
  { type: "ADDRESS", pattern: /\b\d{1,5} [A-Z][a-z]+ (?:Street|Avenue|Road|Lane|Drive|St|Ave|Rd)\b/g },
];

export const BASELINE_ENGINE = "pattern-only";

/** The baseline's entities in segments (words split at white space; matched in the words joined by spaces). */
export function baselineEntities(segments: readonly Segment[], entities?: readonly PiiEntityType[]): RedactedEntity[] {
  const out: RedactedEntity[] = [];
  for (const seg of segments) {
    const words = seg.words?.map((w) => w.word.trim()) ?? seg.text.split(/\s+/).filter(Boolean);
    const times =
      seg.words ??
      words.map((_, i) => ({
        start: seg.start + (i * (seg.end - seg.start)) / words.length,
        end: seg.start + ((i + 1) * (seg.end - seg.start)) / words.length,
      }));
    const starts: number[] = [];
    let text = "";
    for (const w of words) {
      if (text) text += " ";
      starts.push(text.length);
      text += w;
    }
    const taken: Array<{ from: number; to: number }> = [];
    for (const { type, pattern } of BASELINE) {
      if (entities && !entities.includes(type)) continue;
      for (const m of text.matchAll(pattern)) {
        const from = starts.findLastIndex((s) => s <= m.index);
        const to = starts.findLastIndex((s) => s < m.index + m[0].length) + 1;
        if (from < 0 || taken.some((t) => t.from < to && from < t.to)) continue;
        taken.push({ from, to });
        out.push({ type, segmentId: seg.id, start: times[from]!.start, end: times[to - 1]!.end, wordStart: from, wordEnd: to });
      }
    }
  }
  return out;
}
