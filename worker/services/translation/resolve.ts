import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { requireSegmentedTranscript } from "../../transcripts/lookup";
import type { CreateContext, Resolved } from "../types";
import { planTranslation } from "./plan";

/**
 * A translation's create: the transcript (completed, with segments), then the translation's plan
 * (plan.ts: keys next to the transcript's own files, or the request's presigned URLs). One credit.
 */
export async function resolveTranslation(
  ctx: CreateContext,
  input: InputOf<"translation">,
): Promise<Resolved<StoredInputOf<"translation">>> {
  const t = await requireSegmentedTranscript(ctx.db, ctx.projectId, input.textSourceId, "input.textSourceId");
  const planned = await planTranslation(ctx, t, input, "input", "input.textSourceId");
  return {
    // An s3_presigned job shows its URLs as its output keys: redacted (the full ones are sealed with the job).
    input: {
      ...input,
      ...planned.fields,
      ...(input.sourceType === "s3_presigned" ? { outputUrls: planned.fields.resolvedOutputKeys } : {}),
    },
    credits: 1,
    probe: planned.probe,
    record: { statements: planned.statements, remove: planned.remove },
  };
}
