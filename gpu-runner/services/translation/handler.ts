import { TranslationResultSchema, type translateStep, type TranslationResult } from "../../../contracts/services/translation";
import type { EngineEnv } from "../../engines/config";
import type { ServiceStepHandler } from "../types";
import {
  defaultTranslationEngine,
  loadTranslationSource,
  saveTranslationCall,
  sourceDetails,
  translateSource,
  translationSave,
  uploadSubtitles,
  type MakeTranslationEngine,
} from "./run";

/**
 * Translation on the runner, one stage per part (run.ts): `load_transcription` (the layer the job
 * asked for and the project glossary), `translate`, `upload_subtitles` (SRT and VTT, one cue per
 * segment, next to the transcript's own files), `save_translation` (the Worker stores it).
 */
export interface TranslationHandlerDeps {
  createEngine?: MakeTranslationEngine;
  env?: EngineEnv;
}

export function createTranslationHandler(deps: TranslationHandlerDeps = {}): ServiceStepHandler<"translation", typeof translateStep> {
  const makeEngine = deps.createEngine ?? defaultTranslationEngine;
  return async (ctx) => {
    const { report, signal, input: plan } = ctx;
    const source = await report.stage("load_transcription", () => loadTranslationSource(ctx), sourceDetails);
    const engine = makeEngine(plan.engine, deps.env ?? process.env);
    const translated = await report.stage(
      "translate",
      () => translateSource(engine, plan, source, signal),
      (t) => ({
        translationBackend: engine.engine,
        model: t.model,
        segments: t.segments.length,
        seconds: Math.round(t.translateSec * 1000) / 1000,
      }),
    );
    await report.stage(
      "upload_subtitles",
      () => uploadSubtitles(ctx, plan, translated.segments, source.speakers),
      (cues) => ({ cues, ...plan.resolvedOutputKeys }),
    );
    const save = translationSave(engine, plan, source, translated);
    await report.stage(
      "save_translation",
      () => saveTranslationCall(ctx, save),
      (r) => ({ translationId: r.translationId, segmentCount: r.segmentCount, glossaryMissing: save.glossary.missing.length }),
    );
    const result: TranslationResult = {
      translationId: plan.translationId,
      textSourceId: plan.textSourceId,
      sourceLanguage: plan.sourceLanguage,
      targetLanguage: plan.targetLanguage,
      languageKey: plan.languageKey,
      sourceLayer: source.sourceLayer,
      segmentCount: translated.segments.length,
      durationSec: source.durationSec,
      translationBackend: engine.engine,
      model: translated.model,
    };
    return TranslationResultSchema.parse(result);
  };
}

export const translationHandler = createTranslationHandler();
