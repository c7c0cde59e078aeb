import { z } from "zod";
import { custom } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** A Summarization record from a transcript and its visual chunks (pipeline not built yet). */

export const SummarizationInputSchema = z.strictObject({
  textSourceJobId: z
    .string({ message: "textSourceJobId is required" })
    .min(1, { message: "textSourceJobId must not be empty", abort: true })
    .max(128)
    .refine((v) => v.startsWith("job_") || v.startsWith("txt_"), custom("invalidFormat", "textSourceJobId must be a job_ or txt_ id")),
});

export const summarizationService = defineService({
  serviceType: "summarization",
  input: SummarizationInputSchema,
  stages: ["synthesis"],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES],
  nonRetryableCodes: [],
});
