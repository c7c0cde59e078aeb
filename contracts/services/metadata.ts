import { z } from "zod";
import { Id } from "../request-fields";
import { GeneratedBySchema, MetadataDraftSchema } from "../understanding";
import { COMMON_FAILURE_CODES, defineService, defineStep } from "./types";

/**
 * Metadata: title, description, IAB categories, chapters and keywords written from a transcript by
 * the text engine on the runner, then saved on the transcript by the Worker (`mdt_` record).
 */

export const MetadataInputSchema = z.strictObject({ textSourceId: Id("txt_") });

/** What the runner hands the Worker: the draft, who made it, and the transcript state it describes. */
export const MetadataStepResultSchema = MetadataDraftSchema.extend({
  generatedBy: GeneratedBySchema,
  transcriptRevision: z.number().int().nonnegative(),
  segmentCount: z.number().int().nonnegative(),
  durationSec: z.number().nonnegative(),
});
export type MetadataStepResult = z.infer<typeof MetadataStepResultSchema>;

export const generateMetadataStep = defineStep({
  name: "generate",
  executor: "runner",
  handler: "metadata",
  stages: ["load_transcription", "generate_metadata"],
  result: MetadataStepResultSchema,
});

export const saveMetadataStep = defineStep({
  name: "save",
  executor: "worker",
  handler: "metadata.save",
  stages: ["save_metadata"],
  result: z.object({ metadataId: z.string() }).loose(),
});

/** A transcript that disappeared or lost its segments since create: retrying cannot help. */
const FINAL_CODES = ["source_not_found", "no_segments"];

export const metadataService = defineService({
  serviceType: "metadata",
  input: MetadataInputSchema,
  stages: ["load_transcription", "generate_metadata", "save_metadata"],
  steps: [generateMetadataStep, saveMetadataStep],
  failureCodes: [...COMMON_FAILURE_CODES, "engine_unavailable", ...FINAL_CODES],
  nonRetryableCodes: FINAL_CODES,
});
