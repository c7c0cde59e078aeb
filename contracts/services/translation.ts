import { z } from "zod";
import { Id, LanguageCodeSchema, SOURCE_LAYERS } from "../request-fields";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlSchema } from "../presigned";
import { TRANSLATION_BACKENDS } from "../translation-languages";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";

/**
 * Translation: a completed transcript's chosen layer translated segment by segment into one target
 * language, on the runner (the engine: Apertium locally, hosted models behind the same interface).
 * Each translated segment keeps its source segment's id, start and end; SRT and VTT with one cue per
 * segment are written next to the transcript's own files. The runner reads the source through the
 * call `translation.source` and saves through `translation.save` (the Worker replaces the transcript's
 * `translation.<languageKey>` array and completes the `trl_` record), so the segments never pass
 * through the job's small step outputs.
 */

const request = {
  textSourceId: Id("txt_"),
  targetLanguage: LanguageCodeSchema,
  sourceLanguage: LanguageCodeSchema.optional(),
  sourceLayer: z.enum(SOURCE_LAYERS).optional(),
};

/** The subtitles go next to the transcript's own files, in its bucket (`sourceType` may be left out). */
const TranslationBucketInputSchema = z.strictObject({ ...request, sourceType: z.literal("s3_direct").optional() });

/**
 * `s3_presigned` (contracts/presigned.ts): a PUT URL for each subtitle file. Required for a
 * transcript made from presigned URLs (it has no bucket to write next to); allowed for any.
 */
const TranslationPresignedInputSchema = z.strictObject({
  ...request,
  sourceType: z.literal("s3_presigned"),
  outputUrls: z.strictObject({ srt: PresignedUrlSchema, vtt: PresignedUrlSchema }),
});

export const TranslationInputSchema = z.discriminatedUnion("sourceType", [TranslationBucketInputSchema, TranslationPresignedInputSchema], {
  message: "sourceType must be s3_direct or s3_presigned",
});

export const TranslatedSegmentSchema = z.object({
  id: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  /** The source segment's text, as translated (the chosen layer at the time). */
  sourceText: z.string(),
});
export type TranslatedSegment = z.infer<typeof TranslatedSegmentSchema>;

/** `translation.source`: the chosen layer's segments (no word timings) and the project glossary. */
export const TranslationSourceSchema = z.object({
  textSourceId: z.string(),
  language: z.string(),
  durationSec: z.number().nonnegative(),
  revision: z.number().int().nonnegative(),
  sourceLayer: z.enum(SOURCE_LAYERS),
  segments: z.array(z.object({ id: z.number().int().nonnegative(), start: z.number(), end: z.number(), text: z.string() })),
  glossary: z.array(z.object({ term: z.string(), preferred: z.string() })),
});
export type TranslationSource = z.infer<typeof TranslationSourceSchema>;

/** What happened to glossary terms on the way through (a term the engine dropped is reported, not hidden). */
export const GlossaryReportSchema = z.object({
  termsProtected: z.number().int().nonnegative(),
  /** Terms found in the source but absent from a translated segment, by segment id. */
  missing: z.array(z.object({ segmentId: z.number().int().nonnegative(), term: z.string() })),
});

/** `translation.save`: the whole translation; saving it again writes the same rows. */
export const TranslationSaveSchema = z.object({
  translationBackend: z.enum(TRANSLATION_BACKENDS),
  model: z.string().min(1),
  sourceLanguage: z.string(),
  targetLanguage: z.string(),
  transcriptRevision: z.number().int().nonnegative(),
  durationSec: z.number().nonnegative(),
  segments: z.array(TranslatedSegmentSchema),
  outputKeys: z.object({ srt: z.string(), vtt: z.string() }),
  glossary: GlossaryReportSchema,
  timing: z.object({ translateSec: z.number().nonnegative(), segmentsPerSec: z.number().nonnegative() }),
});
export type TranslationSave = z.infer<typeof TranslationSaveSchema>;

/** The step's result: the spec's resultSummary for `translation`. */
export const TranslationResultSchema = z.object({
  translationId: z.string(),
  textSourceId: z.string(),
  sourceLanguage: z.string(),
  targetLanguage: z.string(),
  languageKey: z.string(),
  sourceLayer: z.enum(SOURCE_LAYERS),
  segmentCount: z.number().int().nonnegative(),
  durationSec: z.number().nonnegative(),
  translationBackend: z.enum(TRANSLATION_BACKENDS),
  model: z.string(),
});
export type TranslationResult = z.infer<typeof TranslationResultSchema>;

export const TRANSLATION_STAGES = ["load_transcription", "translate", "upload_subtitles", "save_translation"] as const;

export const translateStep = defineStep({
  name: "translate",
  executor: "runner",
  handler: "translation",
  stages: TRANSLATION_STAGES,
  result: TranslationResultSchema,
});

/** The transcript is gone, empty, or the pair is one the runner's engine cannot do: a retry reads the same. */
const FINAL_CODES = ["source_not_found", "no_segments", "unsupported_language_pair", OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED];

export const translationService = defineService({
  serviceType: "translation",
  input: TranslationInputSchema,
  stored: z.record(z.string(), z.unknown()),
  stages: TRANSLATION_STAGES,
  steps: [translateStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
