import { z } from "zod";
import { RedactedAudioModeSchema, RedactedSpanSchema } from "./redaction";

/**
 * The shapes clip generation shares between the Worker (create checks, the record) and the runner
 * (the pipeline's result): layouts, categories and the per-clip record.
 */

export const CLIP_LAYOUTS = ["vertical_9_16", "horizontal_in_vertical", "horizontal_16_9", "square_1_1"] as const;
export type ClipLayout = (typeof CLIP_LAYOUTS)[number];
export const FILL_STYLES = ["black", "blur", "branding"] as const;
export type FillStyle = (typeof FILL_STYLES)[number];

/** The categories the local classifier knows; the policy's `supportedCategories` is a subset. */
export const CLIP_CATEGORIES = ["interview", "podcast", "gaming", "education", "presentation", "vlog", "news", "sports"] as const;

/** Output size per layout (width × height). */
export const LAYOUT_SIZE: Record<ClipLayout, { width: number; height: number }> = {
  vertical_9_16: { width: 1080, height: 1920 },
  horizontal_in_vertical: { width: 1080, height: 1920 },
  horizontal_16_9: { width: 1920, height: 1080 },
  square_1_1: { width: 1080, height: 1080 },
};

export const EngineRefSchema = z.object({ engine: z.string(), model: z.string() });

export const ClipSchema = z.object({
  index: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  durationSec: z.number().positive(),
  title: z.string(),
  /** 0..1, the weighted sum of `scoreParts` (docs/api.md, "How moments are ranked"). */
  score: z.number(),
  scoreParts: z.record(z.string(), z.number()),
  text: z.string(),
  videoKey: z.string(),
  posterKey: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  /** How the crop followed the picture: `speaker`, `salient` or `centre` per share of the clip. */
  framing: z.record(z.string(), z.number()).optional(),
});
export type Clip = z.infer<typeof ClipSchema>;

/** What the runner's clip step returns; the Worker stores it as the clip generation record. */
export const ClipGenerationResultSchema = z.object({
  layout: z.enum(CLIP_LAYOUTS),
  layoutReason: z.string(),
  fillStyle: z.enum(FILL_STYLES).nullable(),
  category: z.string().nullable(),
  categoryConfidence: z.number().min(0).max(1).nullable(),
  categorySource: z.enum(["detected", "override", "disabled", "unavailable"]),
  captions: z.boolean(),
  sourceDurationSec: z.number().nonnegative(),
  candidateCount: z.number().int().nonnegative(),
  /** The engines and models behind each analysis; the renderer is a tool, not a model. */
  engines: z.object({
    vision: EngineRefSchema.nullable(),
    category: EngineRefSchema.nullable(),
    renderer: z.string(),
  }),
  clips: z.array(ClipSchema),
  /**
   * Present when the transcript was redacted: how the redacted words' audio was replaced and over how
   * many spans in all the clips (spans that touch count once; a span cut by two clips, in each).
   */
  redactedAudio: z.object({ mode: RedactedAudioModeSchema, spans: z.number().int().nonnegative() }).optional(),
});
export type ClipGenerationResult = z.infer<typeof ClipGenerationResultSchema>;

/** The transcript the Worker hands the runner (a scratch object): the current segments with their words. */
export const ClipTranscriptSchema = z.object({
  textSourceId: z.string(),
  language: z.string().nullable(),
  durationSec: z.number().nullable(),
  /** The transcript revision these segments are (absent from a handover written before it was noted). */
  revision: z.number().int().nonnegative().optional(),
  segments: z.array(
    z.object({
      start: z.number(),
      end: z.number(),
      text: z.string(),
      words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number(), confidence: z.number().optional() })).optional(),
      /** Who speaks the segment, on a diarized transcript. */
      speaker: z.string().optional(),
    }),
  ),
  /** The transcript's speakers with the names people gave them (absent from a handover written before speakers existed). */
  speakers: z.array(z.object({ label: z.string(), name: z.string().nullable() })).optional(),
  /**
   * Spans of the media whose words were redacted (contracts/redaction.ts): the audio of a clip is
   * silenced over each. Absent or empty when the transcript was not redacted.
   */
  redactedSpans: z.array(RedactedSpanSchema).optional(),
});
export type ClipTranscript = z.infer<typeof ClipTranscriptSchema>;
