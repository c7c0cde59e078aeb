import { ClipTranscriptSchema, type ClipTranscript } from "../../../contracts/clips";
import { HANDOVER_TRANSCRIPT_CALL } from "../../../contracts/presigned";
import { StepFailure, type HandlerContext } from "../../handler";
import { parseStepInput } from "./input";

/**
 * The transcript the Worker's `fetch_transcription` step handed over to a clip or thumbnail step: a
 * scratch object in a bucket job's bucket, or, for an `s3_presigned` job (no bucket), the runner
 * call `handover.transcript`. Either way the current segments with their word timings.
 */
export async function handedOverTranscript(ctx: HandlerContext): Promise<ClipTranscript> {
  const key = ctx.task.outputs["fetch_transcription"]?.["transcriptKey"];
  if (typeof key === "string") {
    const s3 = await ctx.openStorage();
    return parseStepInput(ClipTranscriptSchema, await (await s3.getObject(ctx.task.storage?.bucket ?? "", key)).json(), "transcript");
  }
  if (!ctx.task.presigned) throw new StepFailure("processing_failed", "the transcript was not handed over", true);
  return ctx.platform.call(HANDOVER_TRANSCRIPT_CALL, {}, ClipTranscriptSchema);
}
