import { z } from "zod";
import { Id, OutputPrefixSchema, s3Source } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** Short MP4 clips rendered from a video and its transcript (pipeline not built yet). */

export const CLIP_LAYOUTS = ["vertical_9_16", "horizontal_in_vertical", "horizontal_16_9", "square_1_1"] as const;
export const FILL_STYLES = ["black", "blur", "branding"] as const;

export const ClipGenerationInputSchema = z.strictObject({
  textSourceId: Id("txt_"),
  ...s3Source,
  outputPrefix: OutputPrefixSchema.optional(),
  options: z
    .strictObject({
      maxClips: z.number().int().min(1).max(1000).optional(),
      layout: z.enum(CLIP_LAYOUTS).optional(),
      fillStyle: z.enum(FILL_STYLES).optional(),
      categoryOverride: z.string().min(1).max(64).optional(),
    })
    .optional(),
});

export const clipGenerationService = defineService({
  serviceType: "clip_generation",
  input: ClipGenerationInputSchema,
  stages: [
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
  ],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES],
  nonRetryableCodes: [],
});
