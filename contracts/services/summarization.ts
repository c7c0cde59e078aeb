import { z } from "zod";
import { custom } from "../request-fields";
import { TEXT_ENGINES } from "../settings";
import { GeneratedBySchema, SummaryDraftSchema } from "../understanding";
import { SpeakerSchema } from "../transcript";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";

/**
 * Summarization: a Summarization record (`sum_`) synthesised on the runner from the transcript's
 * current segments and the visual chunks its transcription's `video_analysis` stored.
 */

export const SummarizationInputSchema = z.strictObject({
  textSourceJobId: z
    .string({ message: "textSourceJobId is required" })
    .min(1, { message: "textSourceJobId must not be empty", abort: true })
    .max(128)
    .refine((v) => v.startsWith("job_") || v.startsWith("txt_"), custom("invalidFormat", "textSourceJobId must be a job_ or txt_ id")),
});

/**
 * A summarization job's stored input: the request, the transcript `textSourceJobId` resolved to, the
 * `sum_` record's id, and `config`, the platform's synthesis settings as they were at create (shown
 * on the record, read-only; the runner's step reads the current settings).
 */
export const SummarizationStoredSchema = z.object({
  textSourceJobId: z.string().min(1),
  textSourceId: z.string().min(1),
  summarizationId: z.string().min(1),
  config: z.object({ textEngine: z.enum(TEXT_ENGINES), textModel: z.string().nullable(), visualChunks: z.boolean() }),
});
export type SummarizationStored = z.infer<typeof SummarizationStoredSchema>;

export const SummarizationStepResultSchema = SummaryDraftSchema.extend({
  generatedBy: GeneratedBySchema,
  /** The transcript's speakers as the summary was written (names at that time); empty when it was not diarized. */
  speakers: z.array(SpeakerSchema).default([]),
  transcriptRevision: z.number().int().nonnegative(),
  segmentCount: z.number().int().nonnegative(),
  visualChunkCount: z.number().int().nonnegative(),
});
export type SummarizationStepResult = z.infer<typeof SummarizationStepResultSchema>;

export const synthesisStep = defineStep({
  name: "synthesis",
  executor: "runner",
  handler: "summarization",
  stages: ["synthesis"],
  result: SummarizationStepResultSchema,
});

const FINAL_CODES = ["source_not_found", "no_segments"];

export const summarizationService = defineService({
  serviceType: "summarization",
  input: SummarizationInputSchema,
  stored: SummarizationStoredSchema,
  stages: ["synthesis"],
  steps: [synthesisStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
