import type { z } from "zod";
import { StepFailure } from "../../handler";

/**
 * A step's stored input (or another document it reads) checked against its schema: a mismatch is
 * `invalid_input`, not retryable, naming every bad path, since a retry would read the same input.
 */
export function parseStepInput<T>(schema: z.ZodType<T>, raw: unknown, what: string): T {
  const r = schema.safeParse(raw);
  if (!r.success)
    throw new StepFailure(
      "invalid_input",
      `${what} is invalid: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      false,
    );
  return r.data;
}

/** Figures in stage details and records: milliseconds (three decimals) are plenty. */
export const round3 = (x: number): number => Math.round(x * 1000) / 1000;
