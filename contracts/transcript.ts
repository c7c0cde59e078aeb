import { z } from "zod";
import { RedactionRecordSchema } from "./redaction";

/**
 * A diarization label: `SPEAKER_00`, `SPEAKER_01`, … numbered by first appearance in the recording
 * (gpu-runner/engines/diarization/interface.ts). Labels never change once written; a person's name
 * for one lives beside it in the transcript's speaker list, so every later output can show either.
 */
export const SpeakerLabelSchema = z.string().regex(/^SPEAKER_\d{2}$/, { message: "speaker labels look like SPEAKER_00" });

/** One recognised word with its timing (seconds from the start of the media) and confidence 0..1. */
export const WordSchema = z.object({
  word: z.string(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  confidence: z.number().min(0).max(1).optional(),
  /** Who said it, when the transcript was diarized. */
  speaker: SpeakerLabelSchema.optional(),
});
export type Word = z.infer<typeof WordSchema>;

export const SegmentSchema = z.object({
  id: z.number().int().nonnegative(),
  start: z.number().nonnegative(),
  end: z.number().nonnegative(),
  text: z.string(),
  words: z.array(WordSchema).optional(),
  confidence: z.number().min(0).max(1).optional(),
  /** Who speaks it, when the transcript was diarized: a segment never spans two speakers. */
  speaker: SpeakerLabelSchema.optional(),
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

/** A speaker of a diarized transcript, in order of first appearance. */
export const SpeakerSchema = z.object({
  label: SpeakerLabelSchema,
  /** The name a person gave the label (the transcript's speakers route), else null. */
  name: z.string().nullable(),
  /** Seconds of the recording its segments cover. */
  speakingSec: z.number().nonnegative(),
  segmentCount: z.number().int().nonnegative(),
});
export type Speaker = z.infer<typeof SpeakerSchema>;

/** What told the speakers apart, as recorded on a transcript. */
export const DiarizationRecordSchema = z.object({ engine: z.string(), model: z.string() });

/** What a runner reports when a transcription task completes. */
export const TranscriptionResultSchema = z.object({
  language: z.string(),
  /** How sure the speech engine is of the language it detected (0..1); null or absent when it gives no figure. */
  languageConfidence: z.number().min(0).max(1).nullable().optional(),
  durationSec: z.number().nonnegative(),
  engine: z.string(),
  model: z.string(),
  segments: z.array(SegmentSchema),
  /** Absent on results written before diarization reached transcription, and when it was off. */
  speakers: z.array(SpeakerSchema).optional(),
  /** What diarized the transcript; null: not diarized. */
  diarization: DiarizationRecordSchema.nullable().optional(),
  visualChunks: z.array(VisualChunkSchema),
  outputKeys: z.object({ fullText: z.string(), segments: z.string(), srt: z.string(), vtt: z.string() }),
  /** What was redacted (types and places, never values); absent or null: not redacted. `segments` are then the redacted text. */
  redaction: RedactionRecordSchema.nullable().optional(),
  /** The segments as heard, before redaction: only when the project keeps unredacted text. */
  unredactedSegments: z.array(SegmentSchema).optional(),
});
export type TranscriptionResult = z.infer<typeof TranscriptionResultSchema>;
