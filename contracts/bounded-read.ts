/**
 * Reading an answer from a server the customer names (a storage endpoint, a presigned URL, an
 * engine's output host) without trusting it to be small: at most N bytes are read, then the stream
 * is cancelled, so a server that ignores `Range`, or answers an error with gigabytes, costs the
 * reader N bytes of memory and no more. Fetch streams only, no Node modules: the Worker and the
 * runner share it.
 */

/** What an error body is read for (an S3 `<Code>`, an expiry message, an API's reason): a few KiB say it all. */
export const ERROR_BODY_BYTES = 4096;

export interface BoundedBytes {
  /** At most the limit's bytes. */
  bytes: Uint8Array;
  /** False when the body went on past the limit (its rest was never read). */
  complete: boolean;
}

/**
 * At most `limit` bytes of `body`; the stream is then cancelled (a server streaming forever is cut
 * off). Memory: the limit plus the one chunk that shows the body goes on.
 */
export async function readAtMost(body: ReadableStream<Uint8Array> | null, limit: number): Promise<BoundedBytes> {
  if (!body) return { bytes: new Uint8Array(0), complete: true };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let complete = false;
  try {
    // One byte past the limit is enough to know the body is longer than allowed.
    while (total <= limit) {
      const { done, value } = await reader.read();
      if (done) {
        complete = true;
        break;
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } finally {
    if (!complete) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
  return { bytes: concat(chunks, Math.min(total, limit)), complete };
}

/** The start of a body as text (an error's explanation): at most `limit` bytes, decoded leniently. */
export async function readTextAtMost(res: Response, limit = ERROR_BODY_BYTES): Promise<string> {
  try {
    const { bytes } = await readAtMost(res.body, limit);
    return new TextDecoder().decode(bytes);
  } catch {
    return "";
  }
}

/** A body longer than its reader allows; `seen` is what was read before giving up (or what the server declared). */
export class BodyTooLargeError extends Error {
  constructor(
    readonly limit: number,
    readonly seen: number,
    readonly declared: boolean,
  ) {
    super(declared ? `declared ${seen} bytes, more than the ${limit} allowed` : `more than the ${limit} bytes allowed`);
    this.name = "BodyTooLargeError";
  }
}

/** The `content-length` an answer declares, or null when it declares none (or nonsense). */
export function declaredLength(res: Response): number | null {
  const v = res.headers.get("content-length");
  if (v === null || !/^\d{1,16}$/.test(v.trim())) return null;
  return Number(v);
}

/**
 * The whole body, which must fit `limit` bytes: a declared length over it fails before reading,
 * and a body that goes on past it fails once the limit is crossed (BodyTooLargeError).
 */
export async function readAllWithin(res: Response, limit: number): Promise<Uint8Array> {
  const length = declaredLength(res);
  if (length !== null && length > limit) {
    await res.body?.cancel().catch(() => undefined);
    throw new BodyTooLargeError(limit, length, true);
  }
  // A declared length within the limit, not content-encoded, is all the body can be (HTTP framing
  // ends it there): read it whole, which costs the Worker about a millisecond less than the stream
  // loop (a profile of the search route's engine calls). An encoded body's length is its compressed
  // size, so it takes the counted path.
  const encoding = res.headers.get("content-encoding");
  if (length !== null && (encoding === null || encoding.trim().toLowerCase() === "identity")) {
    const whole = new Uint8Array(await res.arrayBuffer());
    if (whole.byteLength > limit) throw new BodyTooLargeError(limit, whole.byteLength, false);
    return whole;
  }
  const { bytes, complete } = await readAtMost(res.body, limit);
  if (!complete) throw new BodyTooLargeError(limit, limit, false);
  return bytes;
}

/** The whole body as text (UTF-8), within `limit` bytes. */
export async function readTextWithin(res: Response, limit: number): Promise<string> {
  return new TextDecoder().decode(await readAllWithin(res, limit));
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    if (at >= length) break;
    const part = c.byteLength > length - at ? c.subarray(0, length - at) : c;
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** A size as messages give it: `10737418240 bytes (10 GiB)`. */
export function bytesText(n: number): string {
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n;
  let unit = "";
  for (const u of units) {
    if (v < 1024) break;
    v /= 1024;
    unit = u;
  }
  return unit ? `${n} bytes (${Number(v.toFixed(1))} ${unit})` : `${n} bytes`;
}
