import { z } from "zod";
import { Id } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** Title, description, IAB categories and chapters from a transcript (pipeline not built yet). */

export const MetadataInputSchema = z.strictObject({ textSourceId: Id("txt_") });

export const metadataService = defineService({
  serviceType: "metadata",
  input: MetadataInputSchema,
  stages: ["load_transcription", "generate_metadata", "save_metadata"],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES],
  nonRetryableCodes: [],
});
