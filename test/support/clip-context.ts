import { z } from "zod";
import { ClipGenerationStoredSchema } from "../../contracts/services/clip-generation";
import { TranscriptHandoverOutputSchema } from "../../contracts/transcript-handover";
import type { TestContext } from "./handler-context";
import { typedContext } from "./typed-context";

/** A clip job's test context, typed as the clip handler reads it (the contract's stored input, fetch_transcription's output). */
export function clipContext(ctx: TestContext) {
  return typedContext(ctx, {
    input: ClipGenerationStoredSchema,
    outputs: z.object({ fetch_transcription: TranscriptHandoverOutputSchema.optional() }),
  });
}
