import { z } from "zod";
import { Id, OutputPrefixSchema, s3Source } from "../request-fields";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlListSchema, PresignedUrlSchema } from "../presigned";
import { CLIP_LAYOUTS, ClipGenerationResultSchema, FILL_STYLES } from "../clips";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";
import { TranscriptHandoverOutputSchema } from "../transcript-handover";

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
  stored: z.record(z.string(), z.unknown()),
  stages: CLIP_STAGES,
  steps: [fetchClipTranscriptStep, renderClipsStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
