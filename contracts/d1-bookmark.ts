/**
 * The read-your-writes bookmark (docs/api.md, "Read-your-writes: x-d1-bookmark"): every answer
 * carries the D1 bookmark of the request's session, and a client sends the newest one it holds with
 * its next request, so a read served by a replica sees at least what the client wrote. Shared by the
 * Worker and the typed client.
 */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/** The newer of two bookmarks: D1's bookmarks sort lexicographically from oldest to newest. */
export function newerBookmark(a: string | null | undefined, b: string | null | undefined): string | null {
  if (!a) return b ?? null;
  if (!b) return a;
  return a >= b ? a : b;
}
