/**
 * No fetch of a server a customer names or influences follows a redirect (docs/api.md, "Outbound
 * connections"): a request is sent with `redirect: "manual"`, and any 3xx is a failure; a streamed
 * body goes with `redirect: "error"` (undici would otherwise tee the stream to be able to resend
 * it), which rejects instead. Fetch only: the Worker and the runner share it.
 */

/** Any 3xx answer. */
export const isRedirectStatus = (status: number): boolean => status >= 300 && status <= 399;

/** The rejection of a request sent with `redirect: "error"` that met a redirect (undici: cause `unexpected redirect`). */
export function isRedirectError(err: unknown): boolean {
  const cause = err instanceof Error ? (err as Error & { cause?: unknown }).cause : undefined;
  return cause instanceof Error && /redirect/i.test(cause.message);
}
