import { z } from "zod";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/**
 * Every error the API can answer with. Codes the spec names keep its spelling (`validationError`,
 * `notFound`, `conflict`); the rest are ours and documented in docs/api.md.
 */
export const ErrorCodeSchema = z.enum([
  "validationError",
  "notFound",
  "conflict",
  "unauthorized",
  "forbidden",
  "methodNotAllowed",
  "payloadTooLarge",
  "unsupportedMediaType",
  "rateLimited",
  "quotaExceeded",
  "serviceNotAvailable",
  "idempotencyKeyReused",
  "jobFailed",
  "leaseLost",
  "protocolError",
  "internalError",
]);
export type ErrorCode = z.infer<typeof ErrorCodeSchema>;

export function codeToStatus(code: ErrorCode): ContentfulStatusCode {
  switch (code) {
    case "validationError":
    case "serviceNotAvailable":
    case "idempotencyKeyReused":
    case "jobFailed":
    case "protocolError":
      return 422;
    case "notFound":
      return 404;
    case "conflict":
    case "leaseLost":
      return 409;
    case "unauthorized":
      return 401;
    case "forbidden":
      return 403;
    case "methodNotAllowed":
      return 405;
    case "payloadTooLarge":
      return 413;
    case "unsupportedMediaType":
      return 415;
    case "rateLimited":
    case "quotaExceeded":
      return 429;
    case "internalError":
      return 500;
  }
}

export interface ErrorDetail {
  path: string;
  issue: string;
}

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    /** Extra fields for the response's `metadata` (e.g. when a quota resets). */
    readonly metadata: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  get status(): ContentfulStatusCode {
    return codeToStatus(this.code);
  }
}

export const validationError = (message: string, details: ErrorDetail[] = []) => new ApiError("validationError", message, details);
export const notFound = (message: string, details: ErrorDetail[] = []) => new ApiError("notFound", message, details);
export const conflict = (message: string, details: ErrorDetail[] = []) => new ApiError("conflict", message, details);
export const forbidden = (message: string) => new ApiError("forbidden", message);
export const unauthorized = (message: string) =>
  new ApiError("unauthorized", message, [], {}, { "WWW-Authenticate": 'Bearer realm="media-jobs"' });

export function errorBody(code: ErrorCode, message: string, details: ErrorDetail[] = [], metadata: Record<string, unknown> = {}) {
  return { data: null, error: { code, message, details }, metadata };
}

/**
 * zod issues → the spec's `details[]` ({ path, issue }), one entry per distinct path and issue.
 * Parse with `{ reportInput: true }` so a missing field can be told apart from a wrong one.
 */
export function zodDetails(error: z.ZodError, prefix: string[] = []): ErrorDetail[] {
  const all = error.issues.flatMap((i) => {
    const path = [...prefix, ...i.path.map(String)];
    if (i.code === "unrecognized_keys") {
      return i.keys.map((k) => ({ path: [...path, k].join("."), issue: "notAllowed" }));
    }
    return [{ path: path.join("."), issue: issueName(i) }];
  });
  const seen = new Set<string>();
  return all.filter((d) => {
    const k = `${d.path}\n${d.issue}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** True when the issue is about a field that was not sent (its reported input is absent). */
function isMissing(i: z.core.$ZodIssue): boolean {
  if (i.code === "invalid_union") {
    const discriminator = (i as { discriminator?: unknown }).discriminator;
    const input = i.input;
    return (
      typeof discriminator === "string" &&
      typeof input === "object" &&
      input !== null &&
      (input as Record<string, unknown>)[discriminator] === undefined
    );
  }
  return i.input === undefined;
}

function issueName(i: z.core.$ZodIssue): string {
  switch (i.code) {
    case "invalid_type":
      return isMissing(i) ? "required" : "invalidType";
    case "too_small":
      return "tooSmall";
    case "too_big":
      return "tooBig";
    case "invalid_format":
      return "invalidFormat";
    case "invalid_value":
    case "invalid_union":
      return isMissing(i) ? "required" : "invalidValue";
    case "invalid_key":
      return "invalidKey";
    case "custom":
      return typeof i.params?.["issue"] === "string" ? i.params["issue"] : "invalid";
    default:
      return "invalid";
  }
}

export function zodMessage(error: z.ZodError, prefix: string[] = []): string {
  const first = error.issues[0];
  if (!first) return "invalid request";
  const path = [...prefix, ...first.path.map(String)].join(".");
  return path ? `${path}: ${first.message}` : first.message;
}

/** The one place that renders errors. Handlers throw; this answers in the envelope. */
export function renderError(err: unknown, c: Context): Response {
  if (err instanceof ApiError) {
    for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
    return c.json(errorBody(err.code, err.message, err.details, err.metadata), err.status);
  }
  if (err instanceof z.ZodError) {
    return c.json(errorBody("validationError", zodMessage(err), zodDetails(err)), 422);
  }
  if (err instanceof HTTPException) {
    const code: ErrorCode =
      err.status === 413 ? "payloadTooLarge" : err.status === 401 ? "unauthorized" : err.status === 404 ? "notFound" : "validationError";
    return c.json(errorBody(code, err.message || code), codeToStatus(code));
  }
  console.error(
    JSON.stringify({ level: "error", msg: "unhandled", error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
  );
  return c.json(errorBody("internalError", "internal error; the request can be retried"), 500);
}
