import { z } from "zod";
import { Id, OutputPrefixSchema, s3Source } from "../request-fields";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlListSchema, PresignedUrlSchema } from "../presigned";
import { CLIP_LAYOUTS, ClipGenerationResultSchema, FILL_STYLES } from "../clips";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";
import { TranscriptHandoverOutputSchema } from "../transcript-handover";
import { ProjectBrandingSchema } from "../branding";

/**
 * Clip generation: short MP4 clips of a video's best moments, from its completed transcript. Two
 * steps: the Worker hands the transcript to the runner as a scratch object (it can be megabytes),
 * then one runner step analyses, picks the moments, renders and uploads them.
 */

export { CLIP_LAYOUTS, FILL_STYLES };

const options = z
  .strictObject({
    maxClips: z.number().int().min(1).max(1000).optional(),
    layout: z.enum(CLIP_LAYOUTS).optional(),
    fillStyle: z.enum(FILL_STYLES).optional(),
    categoryOverride: z.string().min(1).max(64).optional(),
    /** Extension (docs/api.md): false renders no burned-in captions. */
    captions: z.boolean().optional(),
  })
  .optional();

const ClipGenerationBucketInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  ...s3Source,
  outputPrefix: OutputPrefixSchema.optional(),
  options,
});

/**
 * `s3_presigned` (contracts/presigned.ts): the video's GET URL and the variable-count scheme's lists:
 * clip *n* (in the order of the result's clips) goes to `video[n-1]` and its poster to `poster[n-1]`.
 * Each list must hold exactly the job's effective `maxClips` (checked at create: `tooFewOutputUrls`, `tooManyOutputUrls`).
 */
const ClipGenerationPresignedInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  sourceType: z.literal("s3_presigned"),
  sourceUrl: PresignedUrlSchema,
  outputUrls: z.strictObject({ video: PresignedUrlListSchema, poster: PresignedUrlListSchema }),
  options,
});

export const ClipGenerationInputSchema = z.discriminatedUnion(
  "sourceType",
  [ClipGenerationBucketInputSchema, ClipGenerationPresignedInputSchema],
  { message: "sourceType must be s3_direct or s3_presigned" },
);

/**
 * The options as the job stores them (worker/services/clip-generation/resolve.ts): the request's
 * against the plan's policy, with the policy's lists the runner chooses within.
 */
const StoredOptionsSchema = z.object({
  /** The request's, capped by the plan (`maxClipsRequested` and `maxClipsCap` say so when it was). */
  maxClips: z.number().int().positive(),
  maxClipsRequested: z.number().int().optional(),
  maxClipsCap: z.number().int().optional(),
  /** Null: chosen by the runner (`allowAutoLayout`) or the platform's default. */
  layout: z.enum(CLIP_LAYOUTS).nullable(),
  allowAutoLayout: z.boolean(),
  fillStyle: z.enum(FILL_STYLES).nullable(),
  captions: z.boolean(),
  categoryOverride: z.string().optional(),
  supportedCategories: z.array(z.string()),
  // Optional: jobs created before 7b1e72e (an automatic layout stays within the plan's lists) lack them.
  supportedLayouts: z.array(z.enum(CLIP_LAYOUTS)).optional(),
  supportedFillStyles: z.array(z.enum(FILL_STYLES)).optional(),
});

const storedCommon = {
  textSourceId: z.string(),
  /** The job's `clp_` record, and the folder its clips are written under. */
  clipGenerationId: z.string(),
  options: StoredOptionsSchema,
  /** Platform-managed toggles (the spec's `options.analysis`), fixed at create. */
  analysis: z.object({ vision: z.boolean(), category: z.boolean() }),
  /**
   * The project's branding as it was at create. Optional: jobs created before 0ee4abc (project
   * branding) lack it, and render with the platform's colour.
   */
  branding: ProjectBrandingSchema.nullable().optional(),
};

/** A bucket job: the source resolved from the transcription's job when the request named none. */
const ClipGenerationBucketStoredSchema = z.object({
  ...storedCommon,
  sourceType: z.literal("s3_direct"),
  connectionId: z.string(),
  bucket: z.string(),
  sourceKey: z.string(),
  /** The request's, as sent; `resolvedOutputPrefix` is the one used. */
  outputPrefix: z.string().optional(),
  resolvedOutputPrefix: z.string(),
});

/** An `s3_presigned` job: its URLs redacted (the runner writes through its presigned grant). */
const ClipGenerationPresignedStoredSchema = z.object({
  ...storedCommon,
  sourceType: z.literal("s3_presigned"),
  sourceUrl: z.string(),
  outputUrls: z.record(z.string(), z.union([z.string(), z.array(z.string()).readonly()])),
});

export const ClipGenerationStoredSchema = z.discriminatedUnion("sourceType", [
  ClipGenerationBucketStoredSchema,
  ClipGenerationPresignedStoredSchema,
]);
export type ClipGenerationStored = z.infer<typeof ClipGenerationStoredSchema>;

export const CLIP_STAGES = [
  "fetch_transcription",
  "download",
  "ingest",
  "detect_scenes",
  "analyze_scenes",
  "build_timeline",
  "detect_category",
  "detect_candidates",
  "render_clips",
  "upload_clips",
] as const;

export const fetchClipTranscriptStep = defineStep({
  name: "fetch_transcription",
  executor: "worker",
  handler: "clip_generation.fetch_transcription",
  stages: ["fetch_transcription"],
  result: z.object({
    /** Absent for an s3_presigned job: its runner step reads the transcript through HANDOVER_TRANSCRIPT_CALL. */
    transcriptKey: z.string().optional(),
    /** The project's brand logo, copied beside the transcript for a `branding` fill. */
    logoKey: z.string().optional(),
    segmentCount: z.number().int(),
    artifacts: z.array(z.string()),
  }),
  output: TranscriptHandoverOutputSchema,
});

export const renderClipsStep = defineStep({
  name: "clips",
  executor: "runner",
  handler: "clip_generation",
  stages: CLIP_STAGES.filter((s) => s !== "fetch_transcription") as Exclude<(typeof CLIP_STAGES)[number], "fetch_transcription">[],
  result: ClipGenerationResultSchema,
});

/** Failures a retry cannot change: the source itself. */
const FINAL_CODES = ["source_not_found", "source_access_denied", "no_moments", OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED];

export const clipGenerationService = defineService({
  serviceType: "clip_generation",
  input: ClipGenerationInputSchema,
  stored: ClipGenerationStoredSchema,
  stages: CLIP_STAGES,
  steps: [fetchClipTranscriptStep, renderClipsStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
