import type { z } from "zod";
import type { ErrorCode } from "../errors";

/**
 * One route of the app as the OpenAPI document describes it. Areas and services list these next to
 * their routes; worker/openapi/document.ts turns them into operations (envelopes, error responses,
 * security) so every description stays a few lines of facts about its route.
 */

/** Who may call a route: its rule in worker/auth/route-access.ts (the guard enforces it), the operator/runner secrets, or nobody. */
export type Access = "public" | "signed" | "project" | "workspace" | "anyKey" | "console" | "admin" | "runner";

export type HttpMethod = "get" | "post" | "patch" | "put" | "delete";

export interface OperationDoc {
  method: HttpMethod;
  /** The path as Hono spells it (`/v1/jobs/:jobId`); the document writes `{jobId}`. */
  path: string;
  tag: string;
  summary: string;
  description?: string;
  access: Access;
  /** The permission the access table gives the route, shown beside the security requirement. */
  permission?: string;
  /** The schema the handler passes to `queryWith` (a zod object). */
  query?: z.ZodObject;
  /**
   * What each query parameter means, by name. Query strings arrive as text, so a comma-separated
   * list or a number reads as `string` in the schema; the note says what the text may hold.
   */
  queryNotes?: Record<string, string>;
  /** The schema the handler passes to `jsonBody` (or validates the read body with). */
  body?: z.ZodType;
  bodyExample?: unknown;
  /** A `multipart/form-data` body instead (an upload): the form's fields as an object schema. */
  multipartBody?: z.ZodType;
  /**
   * A second success answer in the envelope beside a `raw` one: a request that answers a file when
   * its work is done and, when the work outlasts the wait, 202 with the job to poll.
   */
  accepted?: { data: z.ZodType; description: string; headers: Record<string, string> };
  /** Request headers the route reads besides Authorization. */
  headers?: Array<{ name: string; description: string }>;
  /** Path parameter descriptions, by name; every `:param` is documented whether listed or not. */
  params?: Record<string, string>;
  /** Success status; 200 unless given. */
  status?: 200 | 201 | 202;
  /** A second success status with the same envelope, for a create that either completes at once or starts a job (a voice consent). */
  alsoStatus?: 201 | 202;
  /** What `data` holds on success; a record schema from contracts/ where one exists. */
  data?: z.ZodType;
  dataDescription?: string;
  dataExample?: unknown;
  /** What `metadata` carries on success, when more than `{}`. */
  metadataDescription?: string;
  /**
   * Errors the handler itself can answer with. Those every route of its kind gives are added by
   * the assembler: 401/403 for keyed routes, 401 for secret routes, 415/413/422 for a body, 422 for
   * a query, 405 and 500 for all.
   */
  errors?: ErrorCode[];
  /**
   * A response that is not the JSON envelope (the reference page, the document itself, a file):
   * its content type or, for a route that answers several, each of them; and its headers beyond
   * the bookmark, by name.
   */
  raw?: { contentType: string | readonly string[]; description: string; headers?: Record<string, string> };
}

/** Declares a list of operations with their literal shape checked. */
export const operations = (ops: OperationDoc[]): OperationDoc[] => ops;
