import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { BOOKMARK_HEADER } from "../../contracts/d1-bookmark";
import { readSessionCookie } from "../auth/session";
import { isBookmark, openSession } from "../db/client";
import type { AppBindings } from "../env";

/**
 * Reads near the reader (docs/api.md, "Read-your-writes: x-d1-bookmark"; docs/deploy.md, "Read
 * replication"). Every request runs its D1 queries in one D1 session and answers the session's
 * latest bookmark in `x-d1-bookmark`; a client that sends the last bookmark it got back reads at
 * least what it wrote, from any replica that has it.
 *
 * Browsers send no custom header on a page load or a form post, so for a signed-in console browser
 * the bookmark also travels in a cookie: set on every answer to a request that carries the console
 * session cookie (or that sets one: the sign-in), read when the request sends no header. A form's
 * POST and the page it redirects to are then one chain of bookmarks, like an API client's calls.
 */
export { BOOKMARK_HEADER };
export const BOOKMARK_COOKIE = "media_jobs_d1_bookmark";

const READS = new Set(["GET", "HEAD"]);

/**
 * Where a request's session starts:
 * - a read of the public API or the console (GET/HEAD under `/v1/` or `/console`) from the client's
 *   bookmark, else anywhere (`first-unconstrained`: the nearest replica);
 * - everything else on the primary (`first-primary`): writes, and the runner and operator routes,
 *   whose callers carry no bookmark but read what the job machinery has just written.
 * A value that is not a D1 bookmark is ignored: it could only make the queries fail.
 */
export function sessionStart(method: string, path: string, sent: string | undefined): D1SessionConstraint | string {
  const publicRead = READS.has(method) && (path.startsWith("/v1/") || path === "/console" || path.startsWith("/console/"));
  if (!publicRead) return "first-primary";
  return isBookmark(sent) ? sent : "first-unconstrained";
}

/** Whether the answer belongs to a console browser: it came with the session cookie, or is given one. */
function consoleBrowser(c: Context): boolean {
  return readSessionCookie(c) !== undefined || c.res.headers.getSetCookie().length > 0;
}

export const d1Session: MiddlewareHandler<AppBindings> = async (c, next) => {
  const sent = c.req.header(BOOKMARK_HEADER) ?? getCookie(c, BOOKMARK_COOKIE);
  const session = openSession(c.env.DB, sessionStart(c.req.method, c.req.path, sent));
  // The bindings object is shared by every request of the isolate: this request gets a copy with its session.
  c.env = { ...c.env, DB: session.db };
  await next();
  const bookmark = session.bookmark();
  if (!bookmark) return;
  // Hono copies a finished response before changing its headers (one passed through from a fetch is immutable).
  c.header(BOOKMARK_HEADER, bookmark);
  if (consoleBrowser(c) && getCookie(c, BOOKMARK_COOKIE) !== bookmark) {
    // Not a secret (it names a point in the database's history), but nothing a script needs either.
    setCookie(c, BOOKMARK_COOKIE, bookmark, {
      httpOnly: true,
      secure: new URL(c.req.url).protocol === "https:",
      sameSite: "Lax",
      path: "/",
    });
  }
};
