/**
 * Every API route the client calls, one row each. The transport builds requests from these rows
 * only (no path is written anywhere else in the client), so a check can read this table and compare
 * it with the OpenAPI document route by route.
 */
export interface Operation {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI-style template: `{name}` segments are filled from the call's path parameters. */
  readonly path: string;
  /** `project`: a project key or console session in `Authorization`; `none`: sent without one. */
  readonly auth: "project" | "none";
  /** The status of a successful answer. */
  readonly success: 200 | 201;
  /** The query parameters the client may send. */
  readonly query?: readonly string[];
  /**
   * Safe to send again after a 5xx or a lost connection. Reads are; cancel is idempotent by the spec;
   * create is made so by its Idempotency-Key (same key, same body: the stored answer is replayed).
   */
  readonly retry: boolean;
  /** Request headers the operation sends beyond `Authorization` and `Content-Type`. */
  readonly headers?: readonly string[];
}

export const OPERATIONS = {
  createJob: { method: "POST", path: "/v1/jobs", auth: "project", success: 201, retry: true, headers: ["Idempotency-Key"] },
  getJob: { method: "GET", path: "/v1/jobs/{jobId}", auth: "project", success: 200, retry: true },
  listJobs: {
    method: "GET",
    path: "/v1/jobs",
    auth: "project",
    success: 200,
    retry: true,
    query: ["page", "limit", "jobId", "customerJobRef", "user", "input", "statuses", "serviceTypes", "sort", "sortDir"],
  },
  cancelJob: { method: "POST", path: "/v1/jobs/{jobId}/cancel", auth: "project", success: 200, retry: true },
  getJobProgress: { method: "GET", path: "/v1/jobs/{jobId}/progress", auth: "project", success: 200, retry: true },
  listWebhookDeliveries: { method: "GET", path: "/v1/jobs/{jobId}/webhook-deliveries", auth: "project", success: 200, retry: true },
  getJobPolicy: { method: "GET", path: "/v1/jobs/policy", auth: "none", success: 200, retry: true, query: ["serviceType"] },
  getTranscription: {
    method: "GET",
    path: "/v1/transcriptions/{transcriptionId}",
    auth: "project",
    success: 200,
    retry: true,
    query: ["layers"],
  },
  exportTranscription: {
    method: "GET",
    path: "/v1/transcriptions/{transcriptionId}/export",
    auth: "project",
    success: 200,
    retry: true,
    query: ["format", "layer", "speakers"],
  },
  getClipGeneration: { method: "GET", path: "/v1/clip-generations/{clipGenerationId}", auth: "project", success: 200, retry: true },
  createWorkflow: { method: "POST", path: "/v1/workflows", auth: "project", success: 201, retry: true, headers: ["Idempotency-Key"] },
  getWorkflow: { method: "GET", path: "/v1/workflows/{workflowId}", auth: "project", success: 200, retry: true },
  listWorkflows: {
    method: "GET",
    path: "/v1/workflows",
    auth: "project",
    success: 200,
    retry: true,
    query: ["page", "limit", "statuses", "presetId"],
  },
  cancelWorkflow: { method: "POST", path: "/v1/workflows/{workflowId}/cancel", auth: "project", success: 200, retry: true },
  // A read despite the POST: searching twice changes nothing.
  searchCatalog: { method: "POST", path: "/v1/catalog/search", auth: "project", success: 200, retry: true },
} as const satisfies Record<string, Operation>;

export type OperationId = keyof typeof OPERATIONS;

/** The `{name}` parameters of a path template, as a type. */
type PathParams<P extends string> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | PathParams<Rest> : never;
export type ParamsOf<Id extends OperationId> = Record<PathParams<(typeof OPERATIONS)[Id]["path"]>, string>;

/** Fills a path template; each value is percent-encoded as one segment. */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === "") throw new TypeError(`missing path parameter ${name} for ${template}`);
    return encodeURIComponent(value);
  });
}
