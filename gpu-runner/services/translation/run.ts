import { z } from "zod";
import {
  TranslationPlanSchema,
  TranslationSourceSchema,
  type TranslatedSegment,
  type TranslationPlan,
  type TranslationSave,
  type TranslationSource,
} from "../../../contracts/services/translation";
import type { EngineEnv } from "../../engines/config";
import { createTranslationEngine } from "../../engines/translation/factory";
import type { TranslationEngine } from "../../engines/translation/interface";
import { StepFailure } from "../../../contracts/step-failure";
import type { HandlerContext } from "../../handler";
import { uploadObject } from "../../objects";
import { round3 } from "../../step-input";
import { segmentCues, segmentSubtitles } from "../../../contracts/subtitles";
import { glossaryReport } from "./glossary-report";
import { recordSourceDuration } from "../../task-scope";

/**
 * A transcript's translation on the runner, in four parts a handler reports as stages: read the
 * source (call `translation.source`), translate every segment's text (ids, starts and ends copied
 * from the source, never from the engine), write SRT and VTT with one cue per segment, save
 * (call `translation.save`). The translation service reports each part; dubbing reports them as one.
 */

// Dubbing's runner step reads a dubbing job's `input.translation` through these names.
export { TranslationPlanSchema, type TranslationPlan };

export type MakeTranslationEngine = (choice: TranslationPlan["engine"], env: EngineEnv) => TranslationEngine;

/** Hosted models may take a while on a long transcript; one call stays well inside the lease's heartbeats. */
export const defaultTranslationEngine: MakeTranslationEngine = (choice, env) =>
  createTranslationEngine(choice.backend, env, { requestTimeoutMs: 120_000, ...(choice.model ? { model: choice.model } : {}) });

export async function loadTranslationSource(ctx: Pick<HandlerContext, "platform">): Promise<TranslationSource> {
  const doc = await ctx.platform.call("translation.source", {}, TranslationSourceSchema);
  if (!doc.segments.some((s) => s.text.trim() !== ""))
    throw new StepFailure("no_segments", `transcription ${doc.textSourceId} has no segments with text`, false);
  // The text of that much media: the later stages' time limits grow with it (a dub's probe measures the file itself later).
  recordSourceDuration(doc.durationSec);
  return doc;
}

export const sourceDetails = (d: TranslationSource) => ({
  textSourceId: d.textSourceId,
  sourceLayer: d.sourceLayer,
  segments: d.segments.length,
  revision: d.revision,
  glossaryTerms: d.glossary.length,
});

export interface Translated {
  segments: TranslatedSegment[];
  model: string;
  translateSec: number;
}

export async function translateSource(
  engine: TranslationEngine,
  plan: TranslationPlan,
  source: TranslationSource,
  signal: AbortSignal,
): Promise<Translated> {
  const started = performance.now();
  const texts = await engine.translate({
    source: plan.sourceLanguage,
    target: plan.targetLanguage,
    texts: source.segments.map((s) => s.text),
    glossary: source.glossary,
    signal,
  });
  if (texts.length !== source.segments.length)
    throw new StepFailure(
      "processing_failed",
      `the ${engine.engine} engine returned ${texts.length} translations for ${source.segments.length} segments`,
      true,
    );
  return {
    segments: source.segments.map((s, i) => ({
      id: s.id,
      start: s.start,
      end: s.end,
      text: texts[i]!,
      sourceText: s.text,
      ...(s.speaker !== undefined ? { speaker: s.speaker } : {}),
    })),
    model: engine.modelFor(plan.sourceLanguage, plan.targetLanguage),
    translateSec: (performance.now() - started) / 1000,
  };
}

export async function uploadSubtitles(
  ctx: Pick<HandlerContext, "openStorage" | "openObjects" | "task">,
  plan: TranslationPlan,
  segments: readonly TranslatedSegment[],
  speakers: TranslationSource["speakers"] = [],
): Promise<number> {
  // The source's speakers, named as the transcript names them now (labels where it has no name).
  const cues = segmentCues(segments);
  const subtitles = segmentSubtitles(cues, { speakers, speakerLabels: true });
  const files = [
    ["srt", subtitles.srt, "application/x-subrip; charset=utf-8"],
    ["vtt", subtitles.vtt, "text/vtt; charset=utf-8"],
  ] as const;
  // Independent objects: written together.
  if (ctx.task.presigned) {
    const objects = await ctx.openObjects({});
    await Promise.all(files.map(([name, body, type]) => objects.upload(name, body, type)));
  } else {
    // The plan's bucket (a dubbing job's translation writes next to the transcript, wherever that is).
    const s3 = await ctx.openStorage();
    await Promise.all(files.map(([name, body, type]) => uploadObject(s3, plan.bucket ?? "", plan.resolvedOutputKeys[name], body, type)));
  }
  return cues.length;
}

export function translationSave(
  engine: TranslationEngine,
  plan: TranslationPlan,
  source: TranslationSource,
  t: Translated,
): TranslationSave {
  return {
    translationBackend: engine.engine,
    model: t.model,
    sourceLanguage: plan.sourceLanguage,
    targetLanguage: plan.targetLanguage,
    transcriptRevision: source.revision,
    durationSec: source.durationSec,
    segments: t.segments,
    outputKeys: plan.resolvedOutputKeys,
    glossary: glossaryReport(
      source.segments,
      t.segments.map((s) => s.text),
      source.glossary,
    ),
    timing: { translateSec: round3(t.translateSec), segmentsPerSec: round3(t.segments.length / Math.max(t.translateSec, 1e-6)) },
  };
}

export const SavedTranslationSchema = z.object({ translationId: z.string(), segmentCount: z.number() });

export async function saveTranslationCall(ctx: Pick<HandlerContext, "platform">, save: TranslationSave) {
  return ctx.platform.call("translation.save", save, SavedTranslationSchema);
}
