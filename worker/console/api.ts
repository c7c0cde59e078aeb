import type { Context } from "hono";
import type { AppBindings, Env } from "../env";

/**
 * The console's pages read and change data through the public API routes, in process: each page
 * forwards the browser's cookie (and, for a form post, its CSRF token and Origin) to the app, so the
 * API's own authentication, CSRF check, permissions and `console` audit kinds apply unchanged.
 */
export type Ctx = Context<AppBindings>;
type RunCtx = Ctx["executionCtx"];
export type ApiFetch = (request: Request, env: Env, ctx?: RunCtx) => Response | Promise<Response>;

export interface ApiError {
  code: string;
  message: string;
  details?: Array<{ path: string; issue: string }>;
}
export interface ApiResult<T> {
  status: number;
  data: T | null;
  error: ApiError | null;
  metadata: Record<string, unknown>;
  headers: Headers;
}

/** The workspace-scoped session view of GET /v1/console/session (docs/api.md, "The session view"). */
export interface SessionView {
  sessionId: string;
  user: { userId: string; email: string; name: string; role: "admin" | "member"; workspaceId: string };
  workspace: { workspaceId: string; name: string; plan: string };
  project: { projectId: string; name: string } | null;
  csrfToken: string;
}

function executionCtx(c: Ctx): RunCtx | undefined {
  // Hono throws when the runtime gave no execution context (app.request in some tests).
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}

export async function callApi<T>(
  c: Ctx,
  api: ApiFetch,
  method: string,
  path: string,
  opts: { body?: unknown; csrf?: string; fromPage?: boolean } = {},
): Promise<ApiResult<T>> {
  const headers = new Headers({ accept: "application/json" });
  const cookie = c.req.header("cookie");
  if (cookie) headers.set("cookie", cookie);
  if (opts.body !== undefined) headers.set("content-type", "application/json");
  if (opts.csrf !== undefined) headers.set("x-csrf-token", opts.csrf);
  // The API throttles sign-in by the client's address: the page's call comes from the same client.
  const address = c.req.header("cf-connecting-ip");
  if (address) headers.set("cf-connecting-ip", address);
  // The browser's own provenance headers go on, so the API's same-origin check judges the real request;
  // `fromPage` marks a call the page makes on its own behalf (a search while rendering), not the browser's.
  for (const name of opts.fromPage ? [] : ["origin", "sec-fetch-site"]) {
    const v = c.req.header(name);
    if (v) headers.set(name, v);
  }
  const request = new Request(new URL(path, c.req.url), {
    method,
    headers,
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const res = await api(request, c.env, executionCtx(c));
  const parsed = (await res.json().catch(() => null)) as { data?: T; error?: ApiError; metadata?: Record<string, unknown> } | null;
  return {
    status: res.status,
    data: parsed?.data ?? null,
    error: parsed?.error ?? (res.ok ? null : { code: "internalError", message: `HTTP ${res.status}` }),
    metadata: parsed?.metadata ?? {},
    headers: res.headers,
  };
}

/** Like callApi, for reads a page cannot do without: any failure becomes a thrown PageError. */
export async function mustGet<T>(c: Ctx, api: ApiFetch, path: string): Promise<{ data: T; metadata: Record<string, unknown> }> {
  const r = await callApi<T>(c, api, "GET", path);
  if (r.data === null) throw new PageError(r.status, r.error?.message ?? `HTTP ${r.status}`);
  return { data: r.data, metadata: r.metadata };
}

export class PageError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The signed-in user's session, or null when the cookie holds none (missing, ended, expired). */
export async function loadSession(c: Ctx, api: ApiFetch): Promise<SessionView | null> {
  if (!c.req.header("cookie")) return null;
  const r = await callApi<SessionView>(c, api, "GET", "/v1/console/session");
  return r.status === 200 ? r.data : null;
}
