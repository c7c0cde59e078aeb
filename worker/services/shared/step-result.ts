import type { z } from "zod";
import type { StepApplied } from "../../../contracts/step-kit";
import type { ResultSink, StepResultContext } from "../types";

/**
 * A sink that validates a step's result with its contract schema first: a result that does not
 * match is the runner's bug, so the job fails (`processing_failed`) with the first issue named,
 * and nothing is stored.
 */
export function validatedSink<T>(
  schema: z.ZodType<T>,
  what: string,
  apply: (ctx: StepResultContext, result: T) => Promise<StepApplied>,
): ResultSink {
  return async (ctx, raw) => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      return {
        ok: false,
        error: { code: "processing_failed", message: `runner returned an invalid ${what} result${where}: ${issue?.message ?? "invalid"}` },
      };
    }
    return apply(ctx, parsed.data);
  };
}
