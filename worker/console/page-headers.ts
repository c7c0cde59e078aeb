import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../errors";

/**
 * Headers and bounds every console response shares (review findings M2, M6, L14).
 *
 * The policy lets a page run only the console's own script and style files, served by this Worker at
 * /console/assets/: no inline script, no inline event handler, no inline style, no eval, no plugin,
 * no <base>, forms post only here, and only the console may frame it. Media and images come from the
 * console's own media routes, and the scripts fetch only this origin.
 */
const CONSOLE_CSP_DIRECTIVES = {
  "default-src": "'none'",
  "script-src": "'self'",
  "style-src": "'self'",
  "img-src": "'self'",
  "media-src": "'self'",
  "connect-src": "'self'",
  "form-action": "'self'",
  "frame-ancestors": "'self'",
  "base-uri": "'none'",
  "object-src": "'none'",
};
export const CONSOLE_CSP = Object.entries(CONSOLE_CSP_DIRECTIVES)
  .map(([directive, value]) => `${directive} ${value}`)
  .join("; ");

/**
 * The page policy and `Cache-Control: no-store` on every console response that did not set its own:
 * a page shows a user's data and its forms carry the session's CSRF token, so none of it stays in the
 * browser's cache after sign-out. Media sets its stricter policy and the assets their own caching.
 */
export const consolePageHeaders: MiddlewareHandler = async (c, next) => {
  await next();
  if (!c.res.headers.has("content-security-policy")) c.res.headers.set("content-security-policy", CONSOLE_CSP);
  if (!c.res.headers.has("cache-control")) c.res.headers.set("cache-control", "no-store");
};

/** A console form carries a few short fields; more is refused before it is read. */
export const FORM_MAX_BYTES = 64 * 1024;

/**
 * Bounds a console request's body: `maxBytes` for the route at `largePath` (the raw-JSON job form,
 * whose body is a whole job request), FORM_MAX_BYTES for every other. A declared Content-Length over the
 * bound is refused at once; a chunked body is counted as it arrives and refused when it passes it.
 */
export function consoleBodyLimit(largePath: string, maxBytes: number): MiddlewareHandler {
  const limit = (bytes: number) =>
    bodyLimit({
      maxSize: bytes,
      onError: () => {
        throw new ApiError("payloadTooLarge", `request body exceeds ${bytes} bytes`);
      },
    });
  const small = limit(FORM_MAX_BYTES);
  const large = limit(maxBytes);
  return (c, next) => (c.req.path === largePath ? large(c, next) : small(c, next));
}
