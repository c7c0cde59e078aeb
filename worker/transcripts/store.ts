import { and, asc, count, eq, isNull, ne, or, sql } from "drizzle-orm";
import type { Segment, Speaker, VisualChunk } from "../../contracts/transcript";
import type { RedactionRecord } from "../../contracts/redaction";
import type { Db } from "../db/client";
import { glossaryTerms, transcripts } from "../db/schema";
import { notFound } from "../errors";
import type { BlobStore } from "../storage/blobs";
import { applyGlossary, glossaryStamp, type GlossaryTerm } from "./glossary";
import { nowIso } from "../../contracts/clock";
import { namesOf, speakerList, type SpeakerNames } from "../../contracts/speakers";
import { deleteQuietly, dropReplaced, layerJson, putLayers, readLayer, withPointers, type LayerOwner } from "./layers";

export {
  readLayer,
  readLayerOf,
  TRANSCRIPT_LAYER_MAX_BYTES,
  TranscriptTooLargeError,
  type Layer,
  type LayerOwner,
  type LayerPointers,
} from "./layers";

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
 * project glossary applied, and `segments` (current, editable) starts as the glossary layer. The four
 * objects are written first (in parallel), then one D1 write completes the transcript and points at
 * them. Idempotent: a repeated call writes new objects, moves the pointers to them and deletes the
 * ones it replaced.
 */
export async function saveTranscription(
  db: Db,
  blobs: BlobStore,
  t: {
    id: string;
    projectId: string;
    language: string;
    languageConfidence?: number | null | undefined;
    durationSec: number;
    engine: string;
    model: string;
    segments: Segment[];
    visualChunks: VisualChunk[];
    outputKeys: Record<string, string>;
    diarization?: { engine: string; model: string } | null;
    /** Set when the segments are the redacted text (contracts/redaction.ts). */
    redaction?: RedactionRecord | null;
    /** The text as heard, kept beside a redacted transcript only when the project keeps it (layer `unredacted`). */
    unredactedSegments?: Segment[] | null;
  },
): Promise<void> {
  const [glossary, before] = await Promise.all([
    currentGlossary(db, t.projectId),
    db.select({ layers: transcripts.layers }).from(transcripts).where(eq(transcripts.id, t.id)).get(),
  ]);
  const glossaryLayer = layerJson(applyGlossary(t.segments, glossary.terms));
  const pointers = await putLayers(blobs, t, {
    raw: layerJson(t.segments),
    glossary: glossaryLayer,
    segments: glossaryLayer,
    visual: layerJson(t.visualChunks),
    ...(t.redaction && t.unredactedSegments ? { unredacted: layerJson(t.unredactedSegments) } : {}),
  });
  await db
    .update(transcripts)
    .set({
      status: "completed",
      language: t.language,
      languageConfidence: t.languageConfidence ?? null,
      durationSec: t.durationSec,
      engine: t.engine,
      model: t.model,
      revision: 1,
      segmentCount: t.segments.length,
      // Derived here from the segments, not taken from the runner's list, so the two always agree.
      speakers: speakerList(t.segments),
      diarization: t.diarization ?? null,
      redaction: t.redaction ?? null,
      glossaryStamp: glossary.stamp,
      outputKeys: t.outputKeys,
      // The runner wrote the files from these segments: they hold the revision this save sets.
      outputKeysRevision: 1,
      layers: withPointers(pointers),
      updatedAt: nowIso(),
    })
    .where(eq(transcripts.id, t.id))
    .run();
  await dropReplaced(blobs, before?.layers ?? null, pointers);
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
 * `segments` keeps user edits. The new object is written first, then its pointer and its stamp land
 * in one D1 write, so a transcript's stamp always names the glossary its layer was built with.
 */
export async function rebuildGlossaryLayer(
  db: Db,
  blobs: BlobStore,
  t: LayerOwner,
  glossary: { terms: GlossaryTerm[]; stamp: string },
): Promise<Segment[] | null> {
  const raw = await readLayer<Segment[]>(db, blobs, t, "raw");
  if (!raw) return null;
  const layer = applyGlossary(raw, glossary.terms);
  const pointers = await putLayers(blobs, t, { glossary: layerJson(layer) });
  await db
    .update(transcripts)
    .set({ glossaryStamp: glossary.stamp, layers: withPointers(pointers) })
    .where(eq(transcripts.id, t.id))
    .run();
  await dropReplaced(blobs, t.layers, pointers);
  return layer;
}

/**
 * The `glossary` layer as the project's glossary makes it now: the stored layer when its stamp is
 * the current glossary's, else rebuilt (and stored) first. Every reader goes through here, so a
 * change the glossary routes did not get round to rebuilding is never served stale.
 */
export async function glossaryLayerOf(
  db: Db,
  blobs: BlobStore,
  t: LayerOwner & { glossaryStamp: string | null },
): Promise<Segment[] | null> {
  const glossary = await currentGlossary(db, t.projectId);
  if (t.glossaryStamp === glossary.stamp) return readLayer<Segment[]>(db, blobs, t, "glossary");
  return rebuildGlossaryLayer(db, blobs, t, glossary);
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
export async function staleGlossaryTranscripts(db: Db, projectId: string, stamp: string, limit: number): Promise<LayerOwner[]> {
  return db
    .select({ id: transcripts.id, projectId: transcripts.projectId, layers: transcripts.layers })
    .from(transcripts)
    .where(and(eq(transcripts.projectId, projectId), eq(transcripts.status, "completed"), staleAgainst(stamp)))
    .orderBy(asc(transcripts.createdAt))
    .limit(limit)
    .all();
}

/**
 * Replaces the current layer if the revision still matches: the new object is written first, then
 * one conditional UPDATE bumps the revision, moves the pointer and stores the speaker list derived
 * from the new segments (names carried over from `t`'s list, or `names` when given) only where the
 * revision is still `expectedRevision`. A stale edit changes nothing in D1 and deletes the object it
 * wrote; a winning one deletes the object the pointer left. `t` is the row read at `expectedRevision`.
 */
export async function replaceSegments(
  db: Db,
  blobs: BlobStore,
  t: LayerOwner & { speakers?: readonly Speaker[] },
  expectedRevision: number,
  segments: Segment[],
  names: SpeakerNames = namesOf(t.speakers ?? []),
  /** A redacted transcript's record after the edit (worker/transcripts/redaction.ts redactEdited). */
  redaction?: RedactionRecord,
): Promise<number | null> {
  const pointers = await putLayers(blobs, t, { segments: layerJson(segments) });
  const won = await db
    .update(transcripts)
    .set({
      revision: sql`${transcripts.revision} + 1`,
      segmentCount: segments.length,
      speakers: speakerList(segments, names),
      ...(redaction ? { redaction } : {}),
      layers: withPointers(pointers),
      updatedAt: nowIso(),
    })
    .where(and(eq(transcripts.id, t.id), eq(transcripts.revision, expectedRevision)))
    .run();
  if (won.meta.changes === 0) {
    await deleteQuietly(blobs, Object.values(pointers), "a losing edit's layer left to the sweep");
    return null;
  }
  await dropReplaced(blobs, t.layers, pointers);
  return expectedRevision + 1;
}

/**
 * Renames speakers without touching the segments: one conditional UPDATE of the list and the
 * revision, so a rename and an edit made from the same revision cannot both land.
 */
export async function replaceSpeakers(db: Db, id: string, expectedRevision: number, speakers: Speaker[]): Promise<number | null> {
  const won = await db
    .update(transcripts)
    .set({ revision: sql`${transcripts.revision} + 1`, speakers, updatedAt: nowIso() })
    .where(and(eq(transcripts.id, id), eq(transcripts.revision, expectedRevision)))
    .run();
  return won.meta.changes === 0 ? null : expectedRevision + 1;
}
