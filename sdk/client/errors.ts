import type { Job } from "../../contracts/job";
import type { Workflow } from "../../contracts/workflows";

/** One entry of the envelope's `error.details[]`: where in the request, and a machine-readable token. */
export interface ErrorDetail {
  path: string;
  issue: string;
}

/**
 * Any failed API call: the spec's error envelope (`{ data: null, error: { code, message, details } }`)
 * as a typed error. A request that never got an answer (connection refused, DNS, reset) has
 * `status: 0` and `code: "networkError"`; an answer that is not the envelope has `code: "invalidResponse"`.
 * Branch on `code` and `details[].issue`, never on `message` (docs/api.md, "Errors").
 */
export class MediaJobsError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  /** The platform's request id when the answer carried one (`cf-ray` behind Cloudflare, else `x-request-id`), for support. */
  readonly requestId: string | null;
  /** The envelope's `metadata` (e.g. `quota` on 429 `quotaExceeded`). */
  readonly metadata: Record<string, unknown>;
  /** From a `Retry-After` header, in milliseconds. */
  readonly retryAfterMs: number | null;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ErrorDetail[];
    requestId?: string | null;
    metadata?: Record<string, unknown>;
    retryAfterMs?: number | null;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "MediaJobsError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId ?? null;
    this.metadata = init.metadata ?? {};
    this.retryAfterMs = init.retryAfterMs ?? null;
  }
}

/** `jobs.wait` gave up before the job reached a terminal status; `job` is the last state seen. */
export class WaitTimeoutError extends Error {
  constructor(
    readonly job: Job,
    readonly timeoutMs: number,
  ) {
    super(`job ${job.jobId} is still ${job.status} after ${timeoutMs} ms`);
    this.name = "WaitTimeoutError";
  }
}

/** `workflows.wait` gave up before the workflow ended; `workflow` is the last state seen. */
export class WorkflowWaitTimeoutError extends Error {
  constructor(
    readonly workflow: Workflow,
    readonly timeoutMs: number,
  ) {
    super(`workflow ${workflow.workflowId} is still ${workflow.status} after ${timeoutMs} ms`);
    this.name = "WorkflowWaitTimeoutError";
  }
}

/** A webhook that does not verify: missing headers, a bad signature or a timestamp outside the tolerance. */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: "missingHeaders" | "badTimestamp" | "timestampOutOfTolerance" | "badSignature",
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/** `Retry-After` as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Builds the error for a non-2xx answer from its body (parsed JSON or null) and headers. */
export function errorFromResponse(status: number, headers: Headers, body: unknown, rawText: string): MediaJobsError {
  const requestId = headers.get("cf-ray") ?? headers.get("x-request-id");
  const retryAfter = retryAfterMs(headers.get("retry-after"));
  const error = isRecord(body) && isRecord(body["error"]) ? body["error"] : null;
  if (!error || typeof error["code"] !== "string") {
    return new MediaJobsError({
      status,
      code: "invalidResponse",
      message: `HTTP ${status}: ${rawText.slice(0, 300) || "(empty body)"}`,
      requestId,
      retryAfterMs: retryAfter,
    });
  }
  const details = Array.isArray(error["details"])
    ? error["details"].filter(isRecord).map((d) => ({ path: String(d["path"] ?? ""), issue: String(d["issue"] ?? "") }))
    : [];
  return new MediaJobsError({
    status,
    code: error["code"],
    message: typeof error["message"] === "string" ? error["message"] : error["code"],
    details,
    requestId,
    metadata: isRecord(body) && isRecord(body["metadata"]) ? body["metadata"] : {},
    retryAfterMs: retryAfter,
  });
}
