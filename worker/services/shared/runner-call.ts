import type { z } from "zod";
import { ApiError } from "../../errors";
import type { RunnerCall } from "../types";

/** A runner call with its body checked by `schema`; a bad body is the runner's bug (422 protocol error). */
export function validatedCall<S extends z.ZodType>(
  schema: S,
  run: (ctx: Parameters<RunnerCall>[0], body: z.infer<S>) => Promise<Record<string, unknown>>,
): RunnerCall {
  return async (ctx, raw) => {
    const body = schema.safeParse(raw);
    if (!body.success) {
      const issue = body.error.issues[0];
      const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
      throw new ApiError("protocolError", `invalid call body${where}: ${issue?.message ?? "invalid"}`);
    }
    return run(ctx, body.data);
  };
}
