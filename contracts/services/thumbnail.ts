import { z } from "zod";
import { custom, Id, OutputPrefixSchema, s3Source } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** Cover JPEGs for a transcribed video (pipeline not built yet). */

export const ThumbnailInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  ...s3Source,
  outputPrefix: OutputPrefixSchema.optional(),
  options: z
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
    .optional(),
});

export const thumbnailService = defineService({
  serviceType: "thumbnail",
  input: ThumbnailInputSchema,
  stages: [
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
  ],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES],
  nonRetryableCodes: [],
});
