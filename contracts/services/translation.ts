import { z } from "zod";
import { Id, LanguageCodeSchema, SOURCE_LAYERS } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** Translates a completed transcript into a target language (pipeline not built yet). */

export const TranslationInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  targetLanguage: LanguageCodeSchema,
  sourceLanguage: LanguageCodeSchema.optional(),
  sourceLayer: z.enum(SOURCE_LAYERS).optional(),
});

export const translationService = defineService({
  serviceType: "translation",
  input: TranslationInputSchema,
  stages: ["load_transcription", "translate", "save_translation"],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES],
  nonRetryableCodes: [],
});
