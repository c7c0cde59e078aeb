import { z } from "zod";
import { Id } from "../request-fields";
import { GeneratedBySchema, MetadataDraftSchema } from "../understanding";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";

/**
 * Metadata: title, description, IAB categories, chapters and keywords written from a transcript by
 * the text engine on the runner, then saved on the transcript by the Worker (`mdt_` record).
 */

export const MetadataInputSchema = z.strictObject({ textSourceId: Id("txt_") });

/** A metadata job's stored input: the request and the `mdt_` id its save step writes the record under. */
export const MetadataStoredSchema = z.object({ textSourceId: z.string().min(1), metadataId: z.string().min(1) });
export type MetadataStored = z.infer<typeof MetadataStoredSchema>;

/**
 * What the runner hands the Worker: the draft, who made it, and the transcript state it describes.
 * Chapters are checked against that state: the first at 0, strictly in order, each inside the
 * duration, so a player can show them as given.
 */
export const MetadataStepResultSchema = MetadataDraftSchema.extend({
  generatedBy: GeneratedBySchema,
  transcriptRevision: z.number().int().nonnegative(),
  segmentCount: z.number().int().nonnegative(),
  durationSec: z.number().nonnegative(),
}).superRefine((r, ctx) => {
  if (r.chapters[0] && r.chapters[0].start !== 0)
    ctx.addIssue({ code: "custom", path: ["chapters", 0, "start"], message: "the first chapter must start at 0" });
  r.chapters.forEach((c, i) => {
    const before = r.chapters[i - 1];
    if (before && c.start <= before.start)
      ctx.addIssue({ code: "custom", path: ["chapters", i, "start"], message: "chapters must be in order, each after the one before" });
    if (r.durationSec > 0 && c.start >= r.durationSec)
      ctx.addIssue({
        code: "custom",
        path: ["chapters", i, "start"],
        message: `a chapter must start inside the duration (${r.durationSec} s)`,
      });
  });
});
export type MetadataStepResult = z.infer<typeof MetadataStepResultSchema>;

export const generateMetadataStep = defineStep({
  name: "generate",
  executor: "runner",
  handler: "metadata",
  stages: ["load_transcription", "generate_metadata"],
  result: MetadataStepResultSchema,
  /** The draft, for the save step (in the Worker) to store. */
  output: MetadataStepResultSchema,
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
  stored: MetadataStoredSchema,
  stages: ["load_transcription", "generate_metadata", "save_metadata"],
  steps: [generateMetadataStep, saveMetadataStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
