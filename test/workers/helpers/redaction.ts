import { env } from "cloudflare:workers";
import type { PiiEntityType, RedactedEntity, RedactionRecord } from "../../../contracts/redaction";

/**
 * A transcript's redaction record written as the redaction step writes it (column
 * `transcripts.redaction`): the test plays the detector, as it plays the runner elsewhere.
 */
export async function recordRedaction(
  textSourceId: string,
  entities: ReadonlyArray<{ type: PiiEntityType; start: number; end: number; segmentId?: number }>,
): Promise<RedactionRecord> {
  const found: RedactedEntity[] = entities.map((e) => ({
    type: e.type,
    segmentId: e.segmentId ?? 0,
    start: e.start,
    end: e.end,
    wordStart: 0,
    wordEnd: 1,
  }));
  const counts: Record<string, number> = {};
  for (const e of found) counts[e.type] = (counts[e.type] ?? 0) + 1;
  const record: RedactionRecord = {
    engine: "test-detector",
    model: "test",
    entityTypes: [...new Set(found.map((e) => e.type))],
    entities: found,
    counts,
    reason: "policy",
  };
  await env.DB.prepare("UPDATE transcripts SET redaction = ? WHERE id = ?").bind(JSON.stringify(record), textSourceId).run();
  return record;
}
