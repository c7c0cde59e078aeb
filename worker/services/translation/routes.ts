import { and, desc, eq, sql } from "drizzle-orm";
import { Hono } from "hono";
import { languageKey as keyOf } from "../../../contracts/translation-languages";
import type { TranslatedSegment } from "../../../contracts/services/translation";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb, type Db } from "../../db/client";
import { translations } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { blobStore, type BlobStore } from "../../storage/blobs";
import { ownedTranscript, readLayerOf } from "../../transcripts/store";
import { translationLayer } from "./store";
import { currentRevisionOf, staleness } from "../../transcripts/staleness";

/**
 * Translation records and arrays (the spec leaves their paths to us; docs/api.md):
 *   GET /v1/translations/{translationId}                             the `trl_` record, with its segments while current
 *   GET /v1/transcriptions/{transcriptionId}/translations            the transcript's languages, one line each
 *   GET /v1/transcriptions/{transcriptionId}/translations/{language} the current array for a language, with its record
 */

type TranslationRow = typeof translations.$inferSelect;

/** Whether a record is the one behind its language's current array (a later run replaces it). */
async function isCurrent(db: Db, row: TranslationRow): Promise<boolean> {
  if (row.status !== "completed") return false;
  const latest = await db
    .select({ id: translations.id })
    .from(translations)
    .where(
      and(
        eq(translations.textSourceId, row.textSourceId),
        eq(translations.languageKey, row.languageKey),
        eq(translations.status, "completed"),
      ),
    )
    .orderBy(desc(translations.completedAt), desc(translations.id))
    .get();
  return latest?.id === row.id;
}

function publicRecord(row: TranslationRow, current: boolean, currentRevision: number | null) {
  return {
    translationId: row.id,
    textSourceId: row.textSourceId,
    jobId: row.jobId,
    status: row.status,
    current,
    sourceLanguage: row.sourceLanguage,
    targetLanguage: row.targetLanguage,
    languageKey: row.languageKey,
    sourceLayer: row.sourceLayer,
    translationBackend: row.translationBackend,
    model: row.model,
    segmentCount: row.segmentCount,
    durationSec: row.durationSec,
    ...staleness(row.transcriptRevision, currentRevision),
    outputKeys: row.outputKeys,
    glossary: row.glossary,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
  };
}

async function withSegments(db: Db, blobs: BlobStore, row: TranslationRow, currentRevision: number | null) {
  const current = await isCurrent(db, row);
  const segments = current
    ? ((await readLayerOf<TranslatedSegment[]>(db, blobs, row.textSourceId, translationLayer(row.languageKey))) ?? [])
    : null;
  return { ...publicRecord(row, current, currentRevision), segments };
}

/** The revisions the index's translations were made from, by id: one statement for the whole list. */
async function translationRevisions(db: Db, entries: readonly Record<string, unknown>[]): Promise<Map<string, number | null>> {
  const ids = entries.flatMap((e) => (typeof e["translationId"] === "string" ? [e["translationId"]] : []));
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: translations.id, revision: translations.transcriptRevision })
    .from(translations)
    .where(sql`${translations.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)
    .all();
  return new Map(rows.map((r) => [r.id, r.revision]));
}

export const translationRecordRoutes = new Hono<AppBindings>().get("/:translationId", async (c) => {
  const p = principalOf(c);
  const db = getDb(c.env.DB);
  const id = c.req.param("translationId");
  const row = await db
    .select()
    .from(translations)
    .where(and(eq(translations.id, id), eq(translations.projectId, projectOf(p))))
    .get();
  if (!row) throw notFound(`translation not found: ${id}`, [{ path: "translationId", issue: `notFound:${id}` }]);
  return ok(c, await withSegments(db, blobStore(c.env.BLOBS), row, await currentRevisionOf(db, row.projectId, row.textSourceId)));
});

export const transcriptTranslationRoutes = new Hono<AppBindings>()
  .get("/:transcriptionId/translations", async (c) => {
    const p = principalOf(c);
    const db = getDb(c.env.DB);
    const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
    const index = t.translation as Record<string, Record<string, unknown>>;
    const madeFrom = await translationRevisions(db, Object.values(index));
    return ok(c, {
      transcriptionId: t.id,
      translations: Object.entries(index)
        .map(([languageKey, entry]) => ({
          languageKey,
          ...entry,
          ...staleness(typeof entry["translationId"] === "string" ? madeFrom.get(entry["translationId"]) : null, t.revision),
        }))
        .sort((a, b) => a.languageKey.localeCompare(b.languageKey)),
    });
  })
  .get("/:transcriptionId/translations/:languageKey", async (c) => {
    const p = principalOf(c);
    const db = getDb(c.env.DB);
    const t = await ownedTranscript(db, projectOf(p), c.req.param("transcriptionId"));
    const key = keyOf(c.req.param("languageKey"));
    const byLanguage = t.translation as Record<string, { translationId?: string }>;
    const entry = Object.hasOwn(byLanguage, key) ? byLanguage[key] : undefined;
    const row = entry?.translationId
      ? await db.select().from(translations).where(eq(translations.id, entry.translationId)).get()
      : undefined;
    if (!row)
      throw notFound(`transcription ${t.id} has no translation into ${key}; create a translation job for it`, [
        { path: "languageKey", issue: `notFound:${key}` },
      ]);
    return ok(c, await withSegments(db, blobStore(c.env.BLOBS), row, t.revision));
  });
