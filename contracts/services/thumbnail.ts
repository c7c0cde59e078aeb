import { z } from "zod";
import { custom, Id, OutputPrefixSchema, s3Source, storedBucketSource } from "../request-fields";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlListSchema, PresignedUrlSchema } from "../presigned";
import { ThumbnailResultSchema } from "../thumbnails";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";
import { TranscriptHandoverOutputSchema } from "../transcript-handover";

/**
 * Thumbnails: cover JPEGs (1–3, one credit each) and free frame picks (1–5) for a transcribed video,
 * added to the transcript's set. Two steps, as for clips: the Worker hands the transcript over as a
 * scratch object, then one runner step picks frames, makes the covers and uploads everything.
 */

const options = z
  .strictObject({
    thumbnailCount: z
      .number()
      .int()
      .min(1, { message: "thumbnailCount must be 1-3" })
      .max(3, { message: "thumbnailCount must be 1-3 (max 3 per job)" })
      .optional(),
    nonAiThumbnailCount: z.number().int().min(1).max(5).optional(),
    ratioWidth: z.number().int().min(1).max(100).optional(),
    ratioHeight: z.number().int().min(1).max(100).optional(),
    resolution: z.number().int().min(16).max(3840).optional(),
  })
  .refine(
    (o) => {
      const n = [o.ratioWidth, o.ratioHeight, o.resolution].filter((v) => v !== undefined).length;
      return n === 0 || n === 3;
    },
    custom("ratioIncomplete", "send ratioWidth, ratioHeight and resolution together, or none of them"),
  )
  .optional();

const ThumbnailBucketInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  ...s3Source,
  outputPrefix: OutputPrefixSchema.optional(),
  options,
});

/**
 * `s3_presigned` (contracts/presigned.ts): the video's GET URL (the transcription's source is not
 * reused: its URL was the transcription's, and is gone with it) and the variable-count scheme's
 * lists: cover *n* goes to `cover[n-1]`, frame pick *n* to `frames[n-1]`.
 */
const ThumbnailPresignedInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  sourceType: z.literal("s3_presigned"),
  sourceUrl: PresignedUrlSchema,
  outputUrls: z.strictObject({ cover: PresignedUrlListSchema.max(3), frames: PresignedUrlListSchema.max(5) }),
  options,
});

export const ThumbnailInputSchema = z.discriminatedUnion("sourceType", [ThumbnailBucketInputSchema, ThumbnailPresignedInputSchema], {
  message: "sourceType must be s3_direct or s3_presigned",
});

const ThumbnailStoredOptionsSchema = z.object({
  thumbnailCount: z.number().int().min(1).max(3),
  nonAiThumbnailCount: z.number().int().min(1).max(5),
  /** The shape the size was computed from: the request's, or the plan's default (worker/services/thumbnail/resolve.ts). */
  ratioWidth: z.number().int().positive(),
  ratioHeight: z.number().int().positive(),
  resolution: z.number().int().positive(),
});

/** What every thumbnail job stores, bucket or presigned: the counts and shape filled in, the size and the plan's model. */
const thumbnailStoredFields = {
  textSourceId: z.string().min(1),
  options: ThumbnailStoredOptionsSchema,
  size: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }),
  /** The plan's image model; null: the engine's default. */
  imageModel: z.string().nullable(),
};

/** A bucket job: the source resolved from the transcription's job when the request named none, and the prefix defaulted. */
const ThumbnailBucketStoredSchema = z.object({
  ...thumbnailStoredFields,
  ...storedBucketSource,
});

/** An `s3_presigned` job: its URLs redacted (the full ones travel in the task's presigned grant). */
const ThumbnailPresignedStoredSchema = z.object({
  ...thumbnailStoredFields,
  sourceType: z.literal("s3_presigned"),
  sourceUrl: z.string(),
  outputUrls: z.object({ cover: z.array(z.string()), frames: z.array(z.string()) }),
});

/** The input a thumbnail job stores: what `resolveThumbnail` returns and the runner step reads as `ctx.input`. */
export const ThumbnailStoredSchema = z.discriminatedUnion("sourceType", [ThumbnailBucketStoredSchema, ThumbnailPresignedStoredSchema]);
export type ThumbnailStored = z.infer<typeof ThumbnailStoredSchema>;

export const THUMBNAIL_STAGES = [
  "download",
  "fetch_transcription",
  "thumbnail_ingest",
  "thumbnail_encode",
  "thumbnail_analyze",
  "thumbnail_merge",
  "thumbnail_audio",
  "thumbnail_generate",
  "upload_thumbnail_1",
  "upload_thumbnail_2",
  "upload_thumbnail_3",
  "thumbnail_pipeline",
] as const;

export const fetchThumbnailTranscriptStep = defineStep({
  name: "fetch_transcription",
  executor: "worker",
  handler: "thumbnail.fetch_transcription",
  stages: ["fetch_transcription"],
  // No transcriptKey for an s3_presigned job: its runner step reads the transcript through HANDOVER_TRANSCRIPT_CALL.
  result: z.object({ transcriptKey: z.string().optional(), segmentCount: z.number().int(), artifacts: z.array(z.string()) }),
  output: TranscriptHandoverOutputSchema,
});

export const thumbnailStep = defineStep({
  name: "thumbnails",
  executor: "runner",
  handler: "thumbnail",
  stages: THUMBNAIL_STAGES.filter((s) => s !== "fetch_transcription") as Exclude<
    (typeof THUMBNAIL_STAGES)[number],
    "fetch_transcription"
  >[],
  result: ThumbnailResultSchema,
});

/** Failures a retry cannot change: the source itself. */
const FINAL_CODES = ["source_not_found", "source_access_denied", "no_usable_frames", OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED];

export const thumbnailService = defineService({
  serviceType: "thumbnail",
  input: ThumbnailInputSchema,
  stored: ThumbnailStoredSchema,
  stages: THUMBNAIL_STAGES,
  steps: [fetchThumbnailTranscriptStep, thumbnailStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
