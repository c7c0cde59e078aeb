import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { MediaJobsError } from "../../client";

/**
 * What every tool answers: a short text for the model to read, and the same facts as structured
 * content (checked against the tool's output schema by the SDK on both ends).
 */
export function toolResult(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: structured };
}

/** The `_meta` key a tool error carries the API's error under, for clients that branch on `code`. */
export const ERROR_META_KEY = "media-jobs/error";

export interface ToolErrorBody {
  status: number;
  code: string;
  message: string;
  details: Array<{ path: string; issue: string }>;
  requestId: string | null;
}

/**
 * A failed call as an MCP tool error (`isError: true`), never a protocol error and never a crash:
 * the model sees the API's code and message and can correct its call. The error is not in
 * `structuredContent` because clients check that against the tool's output schema even on errors.
 */
export function toolError(err: unknown): CallToolResult {
  const body = errorBody(err);
  const details = body.details.map((d) => `\n  ${d.path}: ${d.issue}`).join("");
  const status = body.status ? ` (HTTP ${body.status})` : "";
  const request = body.requestId ? `\n  request id: ${body.requestId}` : "";
  return {
    isError: true,
    content: [{ type: "text", text: `error: ${body.code}${status}: ${body.message}${details}${request}` }],
    _meta: { [ERROR_META_KEY]: body },
  };
}

function errorBody(err: unknown): ToolErrorBody {
  if (err instanceof MediaJobsError) {
    return { status: err.status, code: err.code, message: err.message, details: err.details, requestId: err.requestId };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { status: 0, code: "localError", message, details: [], requestId: null };
}

/** Runs a tool body; whatever it throws becomes a tool error. */
export async function guarded(body: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await body();
  } catch (err) {
    return toolError(err);
  }
}
