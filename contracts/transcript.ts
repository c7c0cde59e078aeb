import { z } from "zod";

/** One recognised word with its timing (seconds from the start of the media) and confidence 0..1. */
export const WordSchema = z.object({
  word: z.string(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  confidence: z.number().min(0).max(1).optional(),
});
export type Word = z.infer<typeof WordSchema>;

export const SegmentSchema = z.object({
  id: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  words: z.array(WordSchema).optional(),
  confidence: z.number().min(0).max(1).optional(),
});
export type Segment = z.infer<typeof SegmentSchema>;

/** Per-scene visual descriptors produced by `video_analysis`; summarization reads them later. */
export const VisualChunkSchema = z.object({
  index: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  summary: z.string(),
  descriptors: z.record(z.string(), z.union([z.number(), z.string()])),
});
export type VisualChunk = z.infer<typeof VisualChunkSchema>;

/** What a runner reports when a transcription task completes. */
export const TranscriptionResultSchema = z.object({
  language: z.string(),
  durationSec: z.number().nonnegative(),
  engine: z.string(),
  model: z.string(),
  segments: z.array(SegmentSchema),
  visualChunks: z.array(VisualChunkSchema),
  outputKeys: z.object({ fullText: z.string(), segments: z.string(), srt: z.string(), vtt: z.string() }),
});
export type TranscriptionResult = z.infer<typeof TranscriptionResultSchema>;
