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

/**
 * A translation planned at create (worker/services/translation/plan.ts), by a translation job or by
 * a dubbing job that translates first: the pair (the source inferred from the transcript when the
 * request leaves it out), the subtitle keys next to the transcript's own, the `trl_` record's id and
 * the engine. A translation job stores these at the top of its input, a dubbing job under
 * `input.translation`; the Worker's calls and the runner's step read the same fields.
 */
export const TranslationPlanSchema = z.object({
  textSourceId: z.string().min(1),
  translationId: z.string().min(1),
  sourceLanguage: z.string().min(1),
  sourceLanguageInferred: z.boolean(),
  targetLanguage: z.string().min(1),
  languageKey: z.string().min(1),
  sourceLayer: z.enum(SOURCE_LAYERS),
  /** Null for an `s3_presigned` translation: its files go to the request's URLs. */
  connectionId: z.string().nullable(),
  bucket: z.string().min(1).nullable(),
  /** The keys in the bucket, or for `s3_presigned` the URLs redacted (the full ones are sealed with the job). */
  resolvedOutputKeys: z.object({ srt: z.string().min(1), vtt: z.string().min(1) }),
  /** The engine as configured at create: a settings change does not alter a queued job. */
  engine: z.object({ backend: z.enum(TRANSLATION_BACKENDS), model: z.string().nullable(), pair: z.string() }),
});
export type TranslationPlan = z.infer<typeof TranslationPlanSchema>;

/**
 * A translation job's stored input: the plan, with the request's `sourceType`; an `s3_presigned`
 * job also keeps `outputUrls`, redacted (the same values as its `resolvedOutputKeys`).
 */
export const TranslationStoredSchema = TranslationPlanSchema.extend({
  sourceType: z.enum(["s3_direct", "s3_presigned"]).optional(),
  outputUrls: z.object({ srt: z.string(), vtt: z.string() }).optional(),
});
export type TranslationStored = z.infer<typeof TranslationStoredSchema>;

export const TranslatedSegmentSchema = z.object({
  id: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  /** The source segment's text, as translated (the chosen layer at the time). */
  sourceText: z.string(),
  /** The source segment's speaker, on a diarized transcript. */
  speaker: z.string().optional(),
});
export type TranslatedSegment = z.infer<typeof TranslatedSegmentSchema>;

/** `translation.source`: the chosen layer's segments (no word timings) and the project glossary. */
export const TranslationSourceSchema = z.object({
  textSourceId: z.string(),
  language: z.string(),
  durationSec: z.number().nonnegative(),
  revision: z.number().int().nonnegative(),
  sourceLayer: z.enum(SOURCE_LAYERS),
  segments: z.array(
    z.object({ id: z.number().int().nonnegative(), start: z.number(), end: z.number(), text: z.string(), speaker: z.string().optional() }),
  ),
  glossary: z.array(z.object({ term: z.string(), preferred: z.string() })),
  /** The transcript's speakers and their names (empty when it was not diarized), for the subtitles. */
  speakers: z.array(z.object({ label: z.string(), name: z.string().nullable() })).default([]),
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
  stored: TranslationStoredSchema,
  stages: TRANSLATION_STAGES,
  steps: [translateStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
