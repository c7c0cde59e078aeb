import { AwsClient } from "aws4fetch";
import { declaredLength, ERROR_BODY_BYTES, readAtMost, readTextAtMost } from "./bounded-read";
import { isRedirectError, isRedirectStatus } from "./redirects";

/**
 * The one S3 client of the project, used by the Worker (probes, credential checks) and the runner
 * (download, upload). Every call is signed by aws4fetch, so R2, AWS S3, MinIO and the local store
 * behave the same.
 */
export interface S3Location {
  endpoint: string;
  region: string;
  forcePathStyle: boolean;
  accessKeyId: string;
  secretAccessKey: string;
}

export class S3Error extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly s3Code: string | null,
  ) {
    super(message);
    this.name = "S3Error";
  }
}

/**
 * The store answered with a redirect (3xx), which is never followed: a customer's endpoint could
 * otherwise send the request on to any host, past every address check, and a 307 would replay a
 * PUT's body there. The message names the operation and the status, never where it pointed.
 * `status` is null when the redirect surfaced as a network error (a streamed PUT, below).
 */
export class S3RedirectError extends S3Error {
  constructor(
    readonly what: string,
    readonly redirectStatus: number | null,
  ) {
    super(
      `${what} failed: the store answered with a redirect (HTTP ${redirectStatus ?? "3xx"}), which is not followed`,
      redirectStatus ?? 0,
      null,
    );
    this.name = "S3RedirectError";
  }
}

/** An object key the client will not put into a URL: a `.` or `..` segment would be resolved away by URL normalisation. */
export class S3KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "S3KeyError";
  }
}

/**
 * A fetch as the S3 client calls it: the runner hands in its connect-time guarded fetch
 * (gpu-runner/net/guarded-fetch.ts), the Worker uses the global one.
 */
export type S3Fetch = (url: string, init: RequestInit) => Promise<Response>;

const globalFetch: S3Fetch = (url, init) => fetch(url, init);

/**
 * RFC 3986 encoding per path segment, as SigV4 canonical URIs expect. A `.` or `..` segment is
 * refused: WHATWG URL parsing treats `%2e%2e` as `..` too, so no encoding of it survives
 * normalisation, and `/bucket/../other/key` would address another bucket.
 */
function encodeKey(key: string): string {
  return key
    .split("/")
    .map((part) => {
      if (part === "." || part === "..") throw new S3KeyError(`object key ${JSON.stringify(key)} has a "${part}" segment`);
      return encodeURIComponent(part).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
    })
    .join("/");
}

/** S3 bucket names (3–63 of `a-z0-9.-`, as AWS and R2 allow): anything else could change the URL's host or path. */
function checkBucketName(bucket: string): void {
  if (!/^[A-Za-z0-9._-]{1,255}$/.test(bucket) || bucket === "." || bucket === "..")
    throw new S3KeyError(`bucket name ${JSON.stringify(bucket)} is not valid`);
}

function s3CodeOf(body: string): string | null {
  const m = /<Code>([^<]+)<\/Code>/.exec(body);
  return m?.[1] ?? null;
}

export class S3Client {
  private readonly aws: AwsClient;
  private readonly fetch: S3Fetch;

  constructor(
    private readonly loc: S3Location,
    private readonly timeoutMs = 30_000,
    fetchImpl?: S3Fetch,
  ) {
    // retries: 0 — callers decide what to retry; aws4fetch would otherwise retry 5xx silently.
    this.aws = new AwsClient({
      accessKeyId: loc.accessKeyId,
      secretAccessKey: loc.secretAccessKey,
      region: loc.region,
      service: "s3",
      retries: 0,
    });
    this.fetch = fetchImpl ?? globalFetch;
  }

  objectUrl(bucket: string, key = ""): string {
    checkBucketName(bucket);
    const base = new URL(this.loc.endpoint);
    const path = key ? "/" + encodeKey(key) : "/";
    if (this.loc.forcePathStyle) {
      const prefix = base.pathname.replace(/\/$/, "");
      return `${base.protocol}//${base.host}${prefix}/${encodeURIComponent(bucket)}${key ? path : "/"}`;
    }
    return `${base.protocol}//${bucket}.${base.host}${path}`;
  }

  /**
   * Signs and sends one request; never follows a redirect (S3RedirectError). The body is not part
   * of the signature (`UNSIGNED-PAYLOAD`, which aws4fetch sends for every s3 request), so it goes to
   * fetch as it is, never through an intermediate Request.
   */
  private async send(
    what: string,
    method: string,
    url: string,
    init: { headers?: Record<string, string>; body?: BodyInit; stream?: boolean } = {},
    timeoutMs = this.timeoutMs,
  ): Promise<Response> {
    const signed = await this.aws.sign(url, { method, headers: init.headers ?? {} });
    const headers: Record<string, string> = {};
    signed.headers.forEach((v, k) => (headers[k] = v));
    const request: RequestInit & { duplex?: "half" } = {
      method,
      headers,
      signal: AbortSignal.timeout(timeoutMs),
      ...(init.body !== undefined ? { body: init.body } : {}),
      // A stream body: undici clones a request it may have to redirect, which tees the body and
      // keeps every chunk of the unread branch (the whole file), unless the request can never be
      // redirected (`error`) and has no window. Node only: the Worker never sends a stream.
      ...(init.stream ? { redirect: "error", window: null, duplex: "half" } : { redirect: "manual" }),
    };
    let res: Response;
    try {
      res = await this.fetch(signed.url, request);
    } catch (err) {
      if (init.stream && isRedirectError(err)) throw new S3RedirectError(what, null);
      throw err;
    }
    if (isRedirectStatus(res.status)) {
      await res.body?.cancel().catch(() => undefined);
      throw new S3RedirectError(what, res.status);
    }
    return res;
  }

  /** Throws the failed answer as an S3Error, having read at most a few KiB of its body (the S3 `<Code>`). */
  private async fail(res: Response, what: string): Promise<never> {
    const text = await readTextAtMost(res, ERROR_BODY_BYTES);
    const code = s3CodeOf(text);
    throw new S3Error(`${what} failed: HTTP ${res.status}${code ? ` ${code}` : ""}`, res.status, code);
  }

  /** HEAD on the bucket: proves the bucket exists and the credentials are accepted for it. */
  async checkBucket(bucket: string): Promise<void> {
    const what = `access bucket ${bucket}`;
    const res = await this.send(what, "HEAD", this.objectUrl(bucket));
    if (!res.ok) await this.fail(res, what);
    await res.body?.cancel();
  }

  /**
   * Ranged GET of the first bytes: proves the object exists and is readable, returns its size
   * (null when the store states none). At most `bytes` bytes are read, even from a store that
   * ignores `Range` and sends the whole object (or an endless one): the rest is cancelled.
   */
  async probeObject(
    bucket: string,
    key: string,
    bytes = 4096,
  ): Promise<{ size: number | null; head: Uint8Array; contentType: string | null }> {
    const what = `read ${bucket}/${key}`;
    const res = await this.send(what, "GET", this.objectUrl(bucket, key), { headers: { Range: `bytes=0-${bytes - 1}` } });
    if (!res.ok) await this.fail(res, what);
    const { bytes: head } = await readAtMost(res.body, bytes);
    return { size: objectSize(res), head, contentType: res.headers.get("content-type") };
  }

  /**
   * The object's answer whatever its status (a 404 or 416 is the caller's to pass on), with `range`
   * forwarded and the body unread: what a media player's seek needs (the console's media routes).
   * Redirects are refused as everywhere.
   */
  async rangedGet(bucket: string, key: string, range: string | undefined, timeoutMs?: number): Promise<Response> {
    return this.send(`get ${bucket}/${key}`, "GET", this.objectUrl(bucket, key), { headers: range ? { range } : {} }, timeoutMs);
  }

  /** The object's answer, its body unread: the caller streams it (and bounds it). */
  async getObject(bucket: string, key: string, timeoutMs?: number): Promise<Response> {
    const what = `get ${bucket}/${key}`;
    const res = await this.send(what, "GET", this.objectUrl(bucket, key), {}, timeoutMs);
    if (!res.ok) await this.fail(res, what);
    return res;
  }

  async putObject(
    bucket: string,
    key: string,
    body: BodyInit,
    contentType = "application/octet-stream",
    contentLength?: number,
  ): Promise<void> {
    const what = `put ${bucket}/${key}`;
    const headers: Record<string, string> = { "content-type": contentType };
    if (contentLength !== undefined) headers["content-length"] = String(contentLength);
    const res = await this.send(what, "PUT", this.objectUrl(bucket, key), { body, headers });
    if (!res.ok) await this.fail(res, what);
    await res.body?.cancel();
  }

  /**
   * PUT of a body streamed from its source with its known length (a file on the runner): never whole
   * in memory, never chunked (S3 refuses chunked PUTs without a length), read once, as sent.
   */
  async putObjectStream(
    bucket: string,
    key: string,
    body: ReadableStream<Uint8Array>,
    contentLength: number,
    contentType = "application/octet-stream",
    timeoutMs = this.timeoutMs,
  ): Promise<void> {
    const what = `put ${bucket}/${key}`;
    const headers = { "content-type": contentType, "content-length": String(contentLength) };
    const res = await this.send(what, "PUT", this.objectUrl(bucket, key), { body, headers, stream: true }, timeoutMs);
    if (!res.ok) await this.fail(res, what);
    await res.body?.cancel();
  }

  async deleteObject(bucket: string, key: string): Promise<void> {
    const what = `delete ${bucket}/${key}`;
    const res = await this.send(what, "DELETE", this.objectUrl(bucket, key));
    if (!res.ok && res.status !== 404) await this.fail(res, what);
    await res.body?.cancel();
  }

  async headObject(bucket: string, key: string): Promise<{ size: number; contentType: string | null } | null> {
    const what = `head ${bucket}/${key}`;
    const res = await this.send(what, "HEAD", this.objectUrl(bucket, key));
    if (res.status === 404) return null;
    if (!res.ok) await this.fail(res, what);
    return { size: Number(res.headers.get("content-length") ?? 0), contentType: res.headers.get("content-type") };
  }
}

/**
 * The whole object's size from a (ranged) GET: the total of `Content-Range` (`bytes 0-1023/5000`),
 * or the `Content-Length` of a 200 (a store that ignored `Range` sends everything); null when the
 * answer states neither (`bytes 0-1023/*`, or a 200 streamed without a length).
 */
export function objectSize(res: Response): number | null {
  const range = res.headers.get("content-range");
  if (range !== null) {
    const total = /\/(\d{1,16})\s*$/.exec(range);
    return total ? Number(total[1]) : null;
  }
  return res.status === 200 ? declaredLength(res) : null;
}
