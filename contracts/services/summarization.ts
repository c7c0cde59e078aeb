import { z } from "zod";
import { custom } from "../request-fields";
import { GeneratedBySchema, SummaryDraftSchema } from "../understanding";
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

export const SummarizationStepResultSchema = SummaryDraftSchema.extend({
  generatedBy: GeneratedBySchema,
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
  stored: z.record(z.string(), z.unknown()),
  stages: ["synthesis"],
  steps: [synthesisStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
