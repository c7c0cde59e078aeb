import type { Context } from "hono";
import type { z } from "zod";
import { ApiError, validationError, zodDetails, zodMessage } from "../errors";

/** Reads a JSON body: 415 for another content type, 422 for malformed JSON or a schema mismatch. */
export async function readJson(c: Context): Promise<{ value: unknown; raw: string }> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(type)) {
    throw new ApiError("unsupportedMediaType", "request body must be JSON: send Content-Type: application/json");
  }
  const raw = await c.req.text();
  if (raw.trim() === "") throw validationError("request body is empty; send a JSON object", [{ path: "", issue: "required" }]);
  try {
    return { value: JSON.parse(raw) as unknown, raw };
  } catch (err) {
    throw validationError(`malformed JSON: ${err instanceof Error ? err.message : "parse error"}`, [{ path: "", issue: "malformedJson" }]);
  }
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown, prefix: string[] = []): z.infer<S> {
  const r = schema.safeParse(value, { reportInput: true });
  if (!r.success) throw validationError(zodMessage(r.error, prefix), zodDetails(r.error, prefix));
  return r.data;
}

export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.infer<S>> {
  const { value } = await readJson(c);
  return parseWith(schema, value);
}

export function queryWith<S extends z.ZodType>(c: Context, schema: S): z.infer<S> {
  return parseWith(schema, c.req.query(), ["query"]);
}
