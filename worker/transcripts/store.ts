import { and, asc, count, eq, isNull, ne, or } from "drizzle-orm";
import { randomToken } from "../../contracts/ids";
import type { Segment, VisualChunk } from "../../contracts/transcript";
import type { Db } from "../db/client";
import { glossaryTerms, transcriptLayers, transcripts, type TranscriptLayerName } from "../db/schema";
import { notFound } from "../errors";
import { applyGlossary, glossaryStamp, type GlossaryTerm } from "./glossary";
import { nowIso } from "../../contracts/clock";

export type Layer = TranscriptLayerName;

/** Documented limit behind `transcript_too_large`: the JSON of one layer. */
export const TRANSCRIPT_LAYER_MAX_BYTES = 8 * 1024 * 1024;
const PART_CHARS = 512 * 1024;

export class TranscriptTooLargeError extends Error {
  constructor(readonly bytes: number) {
    super(`transcript is ${bytes} bytes as JSON; the limit is ${TRANSCRIPT_LAYER_MAX_BYTES} bytes per layer`);
  }
}

/** A layer as JSON split into row-sized parts; refuses one over the documented limit. */
function layerParts(value: unknown): string[] {
  const json = JSON.stringify(value);
  const bytes = new TextEncoder().encode(json).length;
  if (bytes > TRANSCRIPT_LAYER_MAX_BYTES) throw new TranscriptTooLargeError(bytes);
  const parts: string[] = [];
  for (let i = 0; i < json.length; i += PART_CHARS) parts.push(json.slice(i, i + PART_CHARS));
  return parts.length === 0 ? ["[]"] : parts;
}

function layerStatements(db: Db, transcriptId: string, layer: Layer, value: unknown) {
  const parts = layerParts(value);
  return [
    db.delete(transcriptLayers).where(and(eq(transcriptLayers.transcriptId, transcriptId), eq(transcriptLayers.layer, layer))),
    ...parts.map((data, part) => db.insert(transcriptLayers).values({ transcriptId, layer, part, data })),
  ];
}

export async function readLayer<T>(db: Db, transcriptId: string, layer: Layer): Promise<T | null> {
  const rows = await db
    .select({ data: transcriptLayers.data })
    .from(transcriptLayers)
    .where(and(eq(transcriptLayers.transcriptId, transcriptId), eq(transcriptLayers.layer, layer)))
    .orderBy(asc(transcriptLayers.part))
    .all();
  if (rows.length === 0) return null;
  return JSON.parse(rows.map((r) => r.data).join("")) as T;
}

export async function projectGlossary(db: Db, projectId: string) {
  return db
    .select({ term: glossaryTerms.term, preferred: glossaryTerms.preferred })
    .from(glossaryTerms)
    .where(eq(glossaryTerms.projectId, projectId))
    .all();
}

/** The project's glossary now, and its stamp. */
export async function currentGlossary(db: Db, projectId: string): Promise<{ terms: GlossaryTerm[]; stamp: string }> {
  const terms = await projectGlossary(db, projectId);
  return { terms, stamp: await glossaryStamp(terms) };
}

/**
 * Stores a finished transcription: `raw` is the engine output, `glossary` the raw layer with the
 * project glossary applied, and `segments` (current, editable) starts as the glossary layer.
 * Idempotent: a repeated call rewrites the same rows.
 */
export async function saveTranscription(
  db: Db,
  t: {
    id: string;
    projectId: string;
    language: string;
    durationSec: number;
    engine: string;
    model: string;
    segments: Segment[];
    visualChunks: VisualChunk[];
    outputKeys: Record<string, string>;
  },
): Promise<void> {
  const glossary = await currentGlossary(db, t.projectId);
  const glossaryLayer = applyGlossary(t.segments, glossary.terms);
  const now = nowIso();
  const finish = db
    .update(transcripts)
    .set({
      status: "completed",
      language: t.language,
      durationSec: t.durationSec,
      engine: t.engine,
      model: t.model,
      revision: 1,
      segmentCount: t.segments.length,
      glossaryStamp: glossary.stamp,
      outputKeys: t.outputKeys,
      updatedAt: now,
    })
    .where(eq(transcripts.id, t.id));
  // One batch is one D1 transaction: the layers and the completed status land together.
  await db.batch([
    finish,
    ...layerStatements(db, t.id, "raw", t.segments),
    ...layerStatements(db, t.id, "glossary", glossaryLayer),
    ...layerStatements(db, t.id, "segments", glossaryLayer),
    ...layerStatements(db, t.id, "visual", t.visualChunks),
  ]);
}

/** A transcript whose job ended without completing: `failed`, so it never reads `pending` forever. */
export async function markTranscriptFailed(db: Db, id: string): Promise<void> {
  await db
    .update(transcripts)
    .set({ status: "failed", updatedAt: nowIso() })
    .where(and(eq(transcripts.id, id), eq(transcripts.status, "pending")));
}

/** The transcript, if it belongs to the project; else the spec's 404. */
export async function ownedTranscript(db: Db, projectId: string, id: string) {
  const t = await db
    .select()
    .from(transcripts)
    .where(and(eq(transcripts.id, id), eq(transcripts.projectId, projectId)))
    .get();
  if (!t) throw notFound(`transcription not found: ${id}`, [{ path: "transcriptionId", issue: `notFound:${id}` }]);
  return t;
}

/**
 * Rebuilds the glossary layer from `raw` with `glossary` (the project's, read once by the caller);
 * `segments` keeps user edits. The layer and its stamp land in one batch, so a transcript's layer is
 * never half rebuilt, and its stamp always names the glossary it was built with.
 */
export async function rebuildGlossaryLayer(
  db: Db,
  transcriptId: string,
  glossary: { terms: GlossaryTerm[]; stamp: string },
): Promise<Segment[] | null> {
  const raw = await readLayer<Segment[]>(db, transcriptId, "raw");
  if (!raw) return null;
  const layer = applyGlossary(raw, glossary.terms);
  await db.batch([
    db.update(transcripts).set({ glossaryStamp: glossary.stamp }).where(eq(transcripts.id, transcriptId)),
    ...layerStatements(db, transcriptId, "glossary", layer),
  ]);
  return layer;
}

/**
 * The `glossary` layer as the project's glossary makes it now: the stored layer when its stamp is
 * the current glossary's, else rebuilt (and stored) first. Every reader goes through here, so a
 * change the glossary routes did not get round to rebuilding is never served stale.
 */
export async function glossaryLayerOf(
  db: Db,
  t: { id: string; projectId: string; glossaryStamp: string | null },
): Promise<Segment[] | null> {
  const glossary = await currentGlossary(db, t.projectId);
  if (t.glossaryStamp === glossary.stamp) return readLayer<Segment[]>(db, t.id, "glossary");
  return rebuildGlossaryLayer(db, t.id, glossary);
}

/** How many completed transcripts of the project have a glossary layer built with another glossary than `stamp`. */
export async function staleGlossaryCount(db: Db, projectId: string, stamp: string): Promise<number> {
  const row = await db
    .select({ n: count() })
    .from(transcripts)
    .where(and(eq(transcripts.projectId, projectId), eq(transcripts.status, "completed"), staleAgainst(stamp)))
    .get();
  return row?.n ?? 0;
}

const staleAgainst = (stamp: string) => or(isNull(transcripts.glossaryStamp), ne(transcripts.glossaryStamp, stamp));

/** Completed transcripts of the project whose glossary layer was built with another glossary than `stamp`, oldest first. */
export async function staleGlossaryTranscripts(db: Db, projectId: string, stamp: string, limit: number): Promise<string[]> {
  const rows = await db
    .select({ id: transcripts.id })
    .from(transcripts)
    .where(and(eq(transcripts.projectId, projectId), eq(transcripts.status, "completed"), staleAgainst(stamp)))
    .orderBy(asc(transcripts.createdAt))
    .limit(limit)
    .all();
  return rows.map((r) => r.id);
}

/**
 * Replaces the current layer if the revision still matches, in one D1 batch (one transaction):
 * the conditional UPDATE bumps the revision and stamps a nonce, and the layer rows are replaced
 * only where that nonce stands, so a stale edit changes nothing and a winning one lands whole.
 */
export async function replaceSegments(db: Db, transcriptId: string, expectedRevision: number, segments: Segment[]): Promise<number | null> {
  const parts = layerParts(segments);
  const d1 = db.$client;
  const nonce = randomToken(16);
  const won = "(SELECT edit_nonce FROM transcripts WHERE id = ?) = ?";
  const [bump] = await d1.batch([
    d1
      .prepare(
        "UPDATE transcripts SET revision = revision + 1, segment_count = ?, updated_at = ?, edit_nonce = ? WHERE id = ? AND revision = ?",
      )
      .bind(segments.length, nowIso(), nonce, transcriptId, expectedRevision),
    d1
      .prepare(`DELETE FROM transcript_layers WHERE transcript_id = ? AND layer = 'segments' AND ${won}`)
      .bind(transcriptId, transcriptId, nonce),
    ...parts.map((data, part) =>
      d1
        .prepare(`INSERT INTO transcript_layers (transcript_id, layer, part, data) SELECT ?, 'segments', ?, ? WHERE ${won}`)
        .bind(transcriptId, part, data, transcriptId, nonce),
    ),
  ]);
  return bump && bump.meta.changes > 0 ? expectedRevision + 1 : null;
}

export { layerStatements };
