import { BodyTooLargeError, bytesText, readTextWithin } from "../../../contracts/bounded-read";
import { ClipTranscriptSchema, type ClipTranscript } from "../../../contracts/clips";
import { HANDOVER_TRANSCRIPT_CALL } from "../../../contracts/presigned";
import { StepFailure } from "../../../contracts/step-failure";
import type { AfterTranscriptHandover } from "../../../contracts/transcript-handover";
import type { HandlerContext } from "../../handler";
import { parseStepInput } from "../../step-input";
import { bucketFailure } from "../../objects";

/**
 * Largest transcript handover read: the Worker writes at most the 8 MiB segments layer with its
 * words' timings; the object sits in the customer's bucket, so it is read with a cap, never whole.
 */
export const MAX_HANDOVER_BYTES = 64 * 1024 * 1024;

/**
 * The transcript the Worker's `fetch_transcription` step handed over to a clip or thumbnail step: a
 * scratch object in a bucket job's bucket, or, for an `s3_presigned` job (no bucket), the runner
 * call `handover.transcript`. Either way the current segments with their word timings.
 */
export async function handedOverTranscript(
  ctx: Pick<HandlerContext<string, unknown, AfterTranscriptHandover>, "outputs" | "openStorage" | "task" | "platform">,
): Promise<ClipTranscript> {
  const key = ctx.outputs.fetch_transcription?.transcriptKey;
  if (key !== undefined) {
    const s3 = await ctx.openStorage();
    const bucket = ctx.task.storage?.bucket ?? "";
    let text: string;
    try {
      text = await readTextWithin(await s3.getObject(bucket, key), MAX_HANDOVER_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLargeError)
        throw new StepFailure(
          "invalid_input",
          `the transcript handed over at ${bucket}/${key} is larger than ${bytesText(err.limit)}`,
          false,
        );
      throw bucketFailure(err, `reading the transcript handed over at ${bucket}/${key}`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw new StepFailure("invalid_input", `the transcript handed over at ${bucket}/${key} is not JSON`, false);
    }
    return parseStepInput(ClipTranscriptSchema, json, "transcript");
  }
  if (!ctx.task.presigned) throw new StepFailure("processing_failed", "the transcript was not handed over", true);
  return ctx.platform.call(HANDOVER_TRANSCRIPT_CALL, {}, ClipTranscriptSchema);
}
