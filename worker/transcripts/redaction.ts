import type { RedactedSpan, RedactionRecord } from "../../contracts/redaction";

/** Where a redacted transcript's audio is silenced in clips and dubs: each entity's time span, in time order. */
export function redactedSpansOf(record: RedactionRecord | null | undefined): RedactedSpan[] {
  if (!record) return [];
  return record.entities.map(({ type, start, end }) => ({ type, start, end })).sort((a, b) => a.start - b.start || a.end - b.end);
}
