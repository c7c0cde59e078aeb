import { redactSegments } from "../../../contracts/pii/redact";
import type { RedactionRecord } from "../../../contracts/redaction";
import type { StoredRedaction } from "../../../contracts/services/transcription";
import { speakerList } from "../../../contracts/speakers";
import type { Segment } from "../../../contracts/transcript";
import type { TranscriptDoc } from "./stages";

/**
 * The `redact` stage: personal data replaced by its type (`[PERSON]`, `[EMAIL]`) in the segments
 * every file and record is made from, before anything is written. The record keeps each entity's
 * type, segment, words and time span, never its value; the text as heard is handed over only when
 * the project keeps unredacted text.
 */

export interface Redacted {
  doc: TranscriptDoc;
  record: RedactionRecord;
  unredacted: Segment[] | null;
}

export function redactTranscript(doc: TranscriptDoc, r: StoredRedaction): Redacted {
  const out = redactSegments(doc.segments, { language: doc.language, entities: r.entities });
  const counts: Record<string, number> = {};
  for (const e of out.entities) counts[e.type] = (counts[e.type] ?? 0) + 1;
  return {
    doc: { ...doc, segments: out.segments, speakers: speakerList(out.segments) },
    record: { engine: out.engine, model: out.model, entityTypes: r.entities, entities: out.entities, counts, reason: r.reason },
    unredacted: r.keepUnredacted ? doc.segments : null,
  };
}

/** What the stage reports: how many entities of which types, and what found them. */
export const redactDetails = (r: Redacted) => ({
  entities: r.record.entities.length,
  byType: r.record.counts,
  engine: r.record.engine,
  model: r.record.model,
  reason: r.record.reason,
  unredactedKept: r.unredacted !== null,
});
