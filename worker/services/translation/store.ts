import { and, eq, sql } from "drizzle-orm";
import type { Job } from "../../../contracts/job";
import { TranslationPlanSchema, type TranslationSave, type TranslationSource } from "../../../contracts/services/translation";
import type { Segment } from "../../../contracts/transcript";
import type { Db } from "../../db/client";
import { transcripts, translations } from "../../db/schema";
import { ApiError } from "../../errors";
import { findTranscript } from "../../transcripts/lookup";
import { requireJobsOwn } from "../shared/result-checks";
import { translationFieldsOf } from "./plan";
import type { BlobStore } from "../../storage/blobs";
import { dropReplaced, layerJson, putLayers, withPointers } from "../../transcripts/layers";
import { glossaryLayerOf, projectGlossary, readLayer, type Layer } from "../../transcripts/store";
import { nowIso } from "../../../contracts/clock";

/**
 * Where a translation lives: the segments as the transcript's `translation.<languageKey>` layer (one
 * array per language, replaced by a later run: no history, as the spec says; an object in the BLOBS
 * bucket the transcript row points at, worker/transcripts/layers.ts), the `trl_` record in
 * `translations`, and the transcript's `translation` column as the index of its languages
 * (`{ es: { translationId, segmentCount, … } }`), updated with one json_set so translations into
 * different languages that finish together never overwrite each other.
 */

const LAYER_OF = { current: "segments", glossary: "glossary", raw: "raw" } as const satisfies Record<string, Layer>;

export const translationLayer = (languageKey: string): Layer => `translation.${languageKey}`;

/** The layer the job asked for, without word timings, as the source it translates (or was translated from), and its transcript's row. */
async function sourceLayer(db: Db, blobs: BlobStore, job: Job) {
  const { textSourceId: id, sourceLayer, sourceLanguage } = translationFieldsOf(job);
  const t = await findTranscript(db, job.projectId, id);
  if (!t || t.status !== "completed") throw new ApiError("notFound", `transcription not found: ${id}`);
  // The glossary layer is read through the project's current glossary (rebuilt first if it is stale).
  const segments =
    (sourceLayer === "glossary" ? await glossaryLayerOf(db, blobs, t) : await readLayer<Segment[]>(db, blobs, t, LAYER_OF[sourceLayer])) ??
    [];
  const source = {
    textSourceId: id,
    language: sourceLanguage,
    durationSec: t.durationSec ?? segments.at(-1)?.end ?? 0,
    revision: t.revision,
    sourceLayer,
    segments: segments.map(({ id: segId, start, end, text, speaker }) => ({
      id: segId,
      start,
      end,
      text,
      ...(speaker !== undefined ? { speaker } : {}),
    })),
    speakers: t.speakers.map(({ label, name }) => ({ label, name })),
  };
  return { source, transcript: t };
}

/** `translation.source`: the layer and the project glossary. */
export async function translationSource(db: Db, blobs: BlobStore, job: Job): Promise<TranslationSource> {
  const [{ source }, glossary] = await Promise.all([sourceLayer(db, blobs, job), projectGlossary(db, job.projectId)]);
  return { ...source, glossary };
}

/**
 * `translation.save`: checks the translation is cue-locked to the source it was made from (same ids,
 * starts and ends, in order), then writes the layer's object and, in one D1 batch, record, index and
 * the layer's pointer; the object the pointer left is deleted after. A redelivered save writes the
 * same rows and a new object.
 */
export async function saveTranslation(
  db: Db,
  blobs: BlobStore,
  job: Job,
  save: TranslationSave,
): Promise<{ translationId: string; segmentCount: number }> {
  const { translationId, textSourceId, languageKey, resolvedOutputKeys: expectedKeys } = translationFieldsOf(job);
  if (save.outputKeys.srt !== expectedKeys.srt || save.outputKeys.vtt !== expectedKeys.vtt)
    throw new ApiError("protocolError", "translation.save names output keys other than the job's");
  // The transcript's index of its languages shows these: only the job's own pair.
  const fields = translationFieldsOf(job);
  requireJobsOwn(save.sourceLanguage, fields.sourceLanguage, "body.sourceLanguage");
  requireJobsOwn(save.targetLanguage, fields.targetLanguage, "body.targetLanguage");
  const { source, transcript } = await sourceLayer(db, blobs, job);
  const mismatch =
    save.segments.length !== source.segments.length ||
    save.segments.some((s, i) => {
      const src = source.segments[i]!;
      return s.id !== src.id || s.start !== src.start || s.end !== src.end;
    });
  if (mismatch)
    throw new ApiError(
      "protocolError",
      `translation.save must keep the ${source.segments.length} source segments' ids, starts and ends in order (the ${source.sourceLayer} layer)`,
    );
  const pointers = await putLayers(blobs, transcript, { [translationLayer(languageKey)]: layerJson(save.segments) });
  const now = nowIso();
  const entry = {
    translationId,
    targetLanguage: save.targetLanguage,
    sourceLayer: source.sourceLayer,
    segmentCount: save.segments.length,
    translationBackend: save.translationBackend,
    model: save.model,
    updatedAt: now,
  };
  await db.batch([
    db
      .update(translations)
      .set({
        status: "completed",
        translationBackend: save.translationBackend,
        model: save.model,
        segmentCount: save.segments.length,
        durationSec: save.durationSec,
        transcriptRevision: save.transcriptRevision,
        glossary: save.glossary,
        timing: save.timing,
        updatedAt: now,
        completedAt: now,
      })
      .where(eq(translations.id, translationId)),
    db
      .update(transcripts)
      .set({
        translation: sql`json_set(${transcripts.translation}, ${`$."${languageKey}"`}, json(${JSON.stringify(entry)}))`,
        layers: withPointers(pointers),
        updatedAt: now,
      })
      .where(eq(transcripts.id, textSourceId)),
  ]);
  await dropReplaced(blobs, transcript.layers, pointers);
  return { translationId, segmentCount: save.segments.length };
}

/** A job that ended without completing leaves its record `failed` (a completed save is never undone). */
export async function failPendingTranslation(db: Db, job: Job): Promise<void> {
  const id = TranslationPlanSchema.safeParse(job.input["translation"] ?? job.input).data?.translationId;
  if (!id) return;
  await db
    .update(translations)
    .set({ status: "failed", updatedAt: nowIso() })
    .where(and(eq(translations.id, id), eq(translations.status, "pending")));
}
