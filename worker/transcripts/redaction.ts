import type { RedactedSpan, RedactionRecord } from "../../contracts/redaction";
import type { Segment } from "../../contracts/transcript";

/** Where a redacted transcript's audio is silenced in clips and dubs: each entity's time span, in time order. */
export function redactedSpansOf(record: RedactionRecord | null | undefined): RedactedSpan[] {
  if (!record) return [];
  return record.entities.map(({ type, start, end }) => ({ type, start, end })).sort((a, b) => a.start - b.start || a.end - b.end);
}

/**
 * A segment edit on a redacted transcript: the edited texts are redacted again before they are stored
 * (a person may type in what the recogniser missed), and the record's entities of those segments are
 * replaced by what is found now. The edited segments' word timings stay as they were (already
 * redacted); entity times in them are spread over the segment as the detector does for text alone.
 * The detector is loaded on first use, so a Worker that never edits a redacted transcript never loads it.
 */
export async function redactEdited(
  record: RedactionRecord,
  segments: readonly Segment[],
  editedIds: ReadonlySet<number>,
  language: string,
): Promise<{ segments: Segment[]; record: RedactionRecord }> {
  if (editedIds.size === 0) return { segments: [...segments], record };
  const { redactSegments } = await import("../../contracts/pii/redact");
  const edited = segments.filter((s) => editedIds.has(s.id)).map(({ words: _words, ...s }) => s);
  const found = redactSegments(edited, { language, entities: record.entityTypes });
  const textById = new Map(found.segments.map((s) => [s.id, s.text]));
  const entities = [...record.entities.filter((e) => !editedIds.has(e.segmentId)), ...found.entities].sort(
    (a, b) => a.segmentId - b.segmentId || a.wordStart - b.wordStart,
  );
  const counts: Record<string, number> = {};
  for (const e of entities) counts[e.type] = (counts[e.type] ?? 0) + 1;
  return {
    segments: segments.map((s) => (textById.has(s.id) ? { ...s, text: textById.get(s.id) ?? s.text } : s)),
    record: { ...record, engine: found.engine, model: found.model, entities, counts },
  };
}
