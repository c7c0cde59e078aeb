import { ClipGenerationStoredSchema } from "../../contracts/services/clip-generation";
import type { TestContext } from "./handler-context";
import { AFTER_HANDOVER, typedContext } from "./typed-context";

/** A clip job's test context, typed as the clip handler reads it (the contract's stored input, fetch_transcription's output). */
export function clipContext(ctx: TestContext) {
  return typedContext(ctx, { input: ClipGenerationStoredSchema, outputs: AFTER_HANDOVER });
}
