import { z } from "zod";

/**
 * Comma-separated query lists (`?statuses=queued,failed`, `?layers=raw,segments`): each value one
 * of `values`, duplicates dropped, at most `maxItems` items as sent (422 `tooBig` beyond), so a list
 * can never grow a query past D1's bound-parameter limit however it is repeated.
 */
export const MAX_QUERY_LIST_ITEMS = 50;

export function csvListOf<T extends string>(values: readonly T[], name: string, maxItems = MAX_QUERY_LIST_ITEMS) {
  return z
    .string()
    .transform((s) =>
      s
        .split(",")
        .map((v) => v.trim())
        .filter(Boolean),
    )
    .refine((list) => list.length <= maxItems, {
      message: `${name} may list at most ${maxItems} values`,
      params: { issue: "tooBig" },
      abort: true,
    })
    .refine((list) => list.every((v) => (values as readonly string[]).includes(v)), {
      message: `${name} must be a comma-separated list of: ${values.join(", ")}`,
      params: { issue: "invalidValue" },
    })
    .transform((list) => [...new Set(list)] as T[]);
}

/** A whole-number query parameter between `min` and `max`, `def` when absent (`?page=2`, `?limit=50`). */
export const intQueryParam = (def: number, min: number, max: number, name: string) =>
  z
    .string()
    .regex(/^\d+$/, { message: `${name} must be a whole number` })
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(min, { message: `${name} must be at least ${min}` })
        .max(max, { message: `${name} must be at most ${max}` }),
    )
    .optional()
    .transform((v) => v ?? def);
