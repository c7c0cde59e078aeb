import { exports } from "cloudflare:workers";
import { admin, type ApiResponse } from "./api";
import { unique, type Tenant } from "./tenant";

/** What the test requests come from: a page of the service itself unless a test says otherwise. */
export const SITE = "http://media-jobs.test";
export const LOOPBACK_SITE = "http://127.0.0.1:8787";
export const PASSWORD = "correct horse battery staple";

export interface ConsoleUser {
  userId: string;
  email: string;
  password: string;
  role: "admin" | "member";
}

/** A console user of the tenant's workspace, made through the operator route the admin CLI calls. */
export async function createUser(
  t: Pick<Tenant, "workspaceId">,
  opts: { role?: "admin" | "member"; password?: string } = {},
): Promise<ConsoleUser> {
  const email = `${unique("user")}@example.com`;
  const password = opts.password ?? PASSWORD;
  const role = opts.role ?? "member";
  const res = await admin<{ userId: string }>("POST", `/workspaces/${t.workspaceId}/users`, { email, role, password });
  if (res.status !== 201) throw new Error(`user create failed: ${JSON.stringify(res.body)}`);
  return { userId: res.body.data.userId, email, password, role };
}

interface RequestOpts {
  body?: unknown;
  /** Defaults to the browser's session token; `null` sends none. */
  csrf?: string | null;
  /** Defaults to the site's own origin; `null` sends no Origin header. */
  origin?: string | null;
  headers?: Record<string, string>;
}

/** Sends a request the way the console's pages will: the cookie jar, the page's Origin, JSON bodies. */
export async function send<T = Record<string, unknown>>(
  method: string,
  path: string,
  opts: RequestOpts & { cookie?: string; site?: string } = {},
): Promise<ApiResponse<T>> {
  const site = opts.site ?? SITE;
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.cookie) headers["cookie"] = opts.cookie;
  if (opts.origin !== null) headers["origin"] = opts.origin ?? site;
  if (opts.csrf) headers["x-csrf-token"] = opts.csrf;
  let body: string | undefined;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers["content-type"] = "application/json";
  }
  const res = await exports.default.fetch(new Request(`${site}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

export interface SessionView {
  sessionId: string;
  user: { userId: string; workspaceId: string; email: string; name: string; role: string };
  workspace: { workspaceId: string; name: string };
  project: { projectId: string } | null;
  csrfToken: string;
  expiresAt: string;
  idleExpiresAt: string;
}

/** A signed-in browser: its cookie (`name=value`) and the CSRF token the sign-in answered. */
export class Browser {
  constructor(
    readonly cookie: string,
    readonly csrfToken: string,
    readonly session: SessionView,
    readonly site: string = SITE,
  ) {}

  request<T = Record<string, unknown>>(method: string, path: string, opts: RequestOpts = {}) {
    const csrf = opts.csrf === undefined ? this.csrfToken : opts.csrf;
    return send<T>(method, path, { ...opts, csrf, cookie: this.cookie, site: this.site });
  }

  get<T = Record<string, unknown>>(path: string) {
    return this.request<T>("GET", path);
  }

  post<T = Record<string, unknown>>(path: string, body?: unknown, opts: Omit<RequestOpts, "body"> = {}) {
    return this.request<T>("POST", path, { ...opts, ...(body !== undefined ? { body } : {}) });
  }
}

/** The `name=value` part of a Set-Cookie header, as a browser would send it back. */
export function cookiePair(setCookie: string | null): string {
  const pair = setCookie?.split(";")[0];
  if (!pair) throw new Error("no Set-Cookie in the answer");
  return pair;
}

export async function signIn(email: string, password: string, extra: { projectId?: string; site?: string } = {}): Promise<Browser> {
  const site = extra.site ?? SITE;
  const res = await send<SessionView>("POST", "/v1/console/sign-in", {
    site,
    body: { email, password, ...(extra.projectId ? { projectId: extra.projectId } : {}) },
  });
  if (res.status !== 200) throw new Error(`sign-in failed ${res.status}: ${JSON.stringify(res.body)}`);
  return new Browser(cookiePair(res.headers.get("set-cookie")), res.body.data.csrfToken, res.body.data, site);
}

/** A user of the tenant's workspace, signed in. */
export async function signedIn(t: Tenant, role: "admin" | "member" = "member"): Promise<{ user: ConsoleUser; browser: Browser }> {
  const user = await createUser(t, { role });
  return { user, browser: await signIn(user.email, user.password) };
}
