import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The spec's success envelope: `{ data, metadata }`. */
export function ok<T>(c: Context, data: T, metadata: Record<string, unknown> = {}, status: ContentfulStatusCode = 200) {
  return c.json({ data, metadata }, status);
}
