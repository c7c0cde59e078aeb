import { z } from "zod";

/**
 * What a thumbnail job makes, shared by the runner (which builds it) and the Worker (which appends
 * it to the transcript's set). Two kinds: `cover` (the job's 1–3 designed or generated covers, one
 * credit each) and `frame` (non-AI frame picks, 1–5, free). Each entry names what made it: a
 * compositor is recorded as `kind: "compositor"`, never as an AI model.
 */

export const ThumbnailScoresSchema = z.object({
  /** Variance of the Laplacian on a 256 px grey copy (higher is sharper). */
  sharpness: z.number(),
  /** Mean luma 0–255. */
  brightness: z.number(),
  /** Luma standard deviation 0–255 (a blank frame is near 0). */
  contrast: z.number(),
  faces: z.number().int().nonnegative(),
  /** 0–1: the largest face's share of the frame height, its confidence and how frontal it is. */
  faceQuality: z.number(),
  /** Speech loudness around the frame (dBFS RMS), null without audio. */
  audioLevelDb: z.number().nullable(),
  /** The combined score the picks were ranked by (0–1). */
  total: z.number(),
});

export const ThumbnailSchema = z.object({
  /** Unique in the transcript's set: `{jobId}-cover-N` or `{jobId}-frame-N`. */
  thumbnailId: z.string(),
  jobId: z.string(),
  kind: z.enum(["cover", "frame"]),
  bucket: z.string(),
  key: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  bytes: z.number().int().nonnegative(),
  /** Source time of the frame it shows or was composed from (null for a purely generated cover). */
  frameTimeSec: z.number().nullable(),
  /** Covers: the image engine. Frames: the frame selector. */
  engine: z.string(),
  model: z.string(),
  /** `generative` (a text-to-image model), `compositor` (designed locally from a frame) or `frame`. */
  engineKind: z.enum(["generative", "compositor", "frame"]),
  /** Covers: the prompt sent (generative) and the title set (compositor). */
  prompt: z.string().nullable(),
  title: z.string().nullable(),
  scores: ThumbnailScoresSchema.nullable(),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
});
export type Thumbnail = z.infer<typeof ThumbnailSchema>;

export const ThumbnailResultSchema = z.object({
  size: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }),
  sourceDurationSec: z.number().nonnegative(),
  candidateCount: z.number().int().nonnegative(),
  title: z.string(),
  keywords: z.array(z.string()),
  engines: z.object({
    image: z.object({ engine: z.string(), model: z.string(), kind: z.enum(["generative", "compositor"]) }),
    vision: z.object({ engine: z.string(), model: z.string() }).nullable(),
  }),
  thumbnails: z.array(ThumbnailSchema),
});
export type ThumbnailResult = z.infer<typeof ThumbnailResultSchema>;
