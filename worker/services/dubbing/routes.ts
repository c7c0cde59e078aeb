import { and, desc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import { dubbings } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { ownedTranscript } from "../../transcripts/store";
import { currentRevisionOf, staleness } from "../../transcripts/staleness";
import { dubbingResultOf, dubbingsWithRevision, dubMadeFrom as madeFrom } from "./store";

/**
 * Dubbing records (paths are ours; docs/api.md):
 *   GET /v1/dubbings/{dubbingId}                          the `dub_` record: artifacts, speakers, per-segment timing
 *   GET /v1/transcriptions/{transcriptionId}/dubbings     the transcript's dubbings, newest first
 */

type DubbingRow = typeof dubbings.$inferSelect;

function publicDubbing(row: DubbingRow, result: Record<string, unknown> | null, fresh: ReturnType<typeof staleness>) {
  return {
    dubbingId: row.id,
    transcriptionId: row.transcriptionId,
    translationId: row.translationId,
    jobId: row.jobId,
    status: row.status,
    sourceLanguage: row.sourceLanguage,
    targetLanguage: row.targetLanguage,
    languageKey: row.languageKey,
    options: row.options,
    outputPrefix: row.outputPrefix,
    ...(result ?? {}),
    ...fresh,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

export const dubbingRecordRoutes = new Hono<AppBindings>().get("/:dubbingId", async (c) => {
  const p = principalOf(c);
  const id = c.req.param("dubbingId");
  const db = getDb(c.env.DB);
  const row = await dubbingsWithRevision(db)
    .where(and(eq(dubbings.id, id), eq(dubbings.projectId, projectOf(p))))
    .get();
  if (!row) throw notFound(`dubbing not found: ${id}`, [{ path: "dubbingId", issue: `notFound:${id}` }]);
  const [result, currentRevision] = await Promise.all([
    dubbingResultOf(c.env, row),
    currentRevisionOf(db, row.projectId, row.transcriptionId),
  ]);
  return ok(c, publicDubbing(row, result, staleness(madeFrom(row), currentRevision)));
});

export const transcriptDubbingRoutes = new Hono<AppBindings>().get("/:transcriptionId/dubbings", async (c) => {
  const p = principalOf(c);
  const db = getDb(c.env.DB);
  const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
  const rows = await dubbingsWithRevision(db).where(eq(dubbings.transcriptionId, t.id)).orderBy(desc(dubbings.createdAt)).limit(100).all();
  return ok(
    c,
    rows.map((r) => ({
      dubbingId: r.id,
      status: r.status,
      languageKey: r.languageKey,
      translationId: r.translationId,
      createdAt: r.createdAt,
      completedAt: r.completedAt,
      ...staleness(madeFrom(r), t.revision),
    })),
  );
});
