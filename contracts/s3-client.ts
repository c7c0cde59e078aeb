import { AwsClient } from "aws4fetch";

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

/** RFC 3986 encoding per path segment, as SigV4 canonical URIs expect. */
function encodeKey(key: string): string {
  return key
    .split("/")
    .map((part) => encodeURIComponent(part).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase()))
    .join("/");
}

function s3CodeOf(body: string): string | null {
  const m = /<Code>([^<]+)<\/Code>/.exec(body);
  return m?.[1] ?? null;
}

export class S3Client {
  private readonly aws: AwsClient;

  constructor(
    private readonly loc: S3Location,
    private readonly timeoutMs = 30_000,
  ) {
    // retries: 0 — callers decide what to retry; aws4fetch would otherwise retry 5xx silently.
    this.aws = new AwsClient({
      accessKeyId: loc.accessKeyId,
      secretAccessKey: loc.secretAccessKey,
      region: loc.region,
      service: "s3",
      retries: 0,
    });
  }

  objectUrl(bucket: string, key = ""): string {
    const base = new URL(this.loc.endpoint);
    const path = key ? "/" + encodeKey(key) : "/";
    if (this.loc.forcePathStyle) {
      const prefix = base.pathname.replace(/\/$/, "");
      return `${base.protocol}//${base.host}${prefix}/${encodeURIComponent(bucket)}${key ? path : "/"}`;
    }
    return `${base.protocol}//${bucket}.${base.host}${path}`;
  }

  private async send(method: string, url: string, init: RequestInit = {}, timeoutMs = this.timeoutMs): Promise<Response> {
    const signal = AbortSignal.timeout(timeoutMs);
    return this.aws.fetch(url, { method, ...init, signal });
  }

  private async fail(res: Response, what: string): Promise<never> {
    const text = await res.text().catch(() => "");
    const code = s3CodeOf(text);
    throw new S3Error(`${what} failed: HTTP ${res.status}${code ? ` ${code}` : ""}`, res.status, code);
  }

  /** HEAD on the bucket: proves the bucket exists and the credentials are accepted for it. */
  async checkBucket(bucket: string): Promise<void> {
    const res = await this.send("HEAD", this.objectUrl(bucket));
    if (!res.ok) await this.fail(res, `access bucket ${bucket}`);
    await res.body?.cancel();
  }

  /** Ranged GET of the first bytes: proves the object exists and is readable, returns its size. */
  async probeObject(
    bucket: string,
    key: string,
    bytes = 4096,
  ): Promise<{ size: number | null; head: Uint8Array; contentType: string | null }> {
    const res = await this.send("GET", this.objectUrl(bucket, key), { headers: { Range: `bytes=0-${bytes - 1}` } });
    if (!res.ok) await this.fail(res, `read ${bucket}/${key}`);
    const head = new Uint8Array(await res.arrayBuffer());
    const range = res.headers.get("content-range");
    const total = range ? Number(range.split("/")[1]) : Number(res.headers.get("content-length"));
    return { size: Number.isFinite(total) ? total : null, head, contentType: res.headers.get("content-type") };
  }

  async getObject(bucket: string, key: string, timeoutMs?: number): Promise<Response> {
    const res = await this.send("GET", this.objectUrl(bucket, key), {}, timeoutMs);
    if (!res.ok) await this.fail(res, `get ${bucket}/${key}`);
    return res;
  }

  async putObject(
    bucket: string,
    key: string,
    body: BodyInit,
    contentType = "application/octet-stream",
    contentLength?: number,
  ): Promise<void> {
    const headers: Record<string, string> = { "content-type": contentType };
    if (contentLength !== undefined) headers["content-length"] = String(contentLength);
    const res = await this.send("PUT", this.objectUrl(bucket, key), { body, headers });
    if (!res.ok) await this.fail(res, `put ${bucket}/${key}`);
    await res.body?.cancel();
  }

  /**
   * PUT of a body streamed from its source with its known length (a file on the runner): never whole
   * in memory, never chunked (S3 refuses chunked PUTs without a length). The payload is not hashed
   * (`UNSIGNED-PAYLOAD`, which aws4fetch sends for every s3 request), so the stream is read once, as sent.
   */
  async putObjectStream(
    bucket: string,
    key: string,
    body: ReadableStream<Uint8Array>,
    contentLength: number,
    contentType = "application/octet-stream",
    timeoutMs = this.timeoutMs,
  ): Promise<void> {
    const signed = await this.aws.sign(this.objectUrl(bucket, key), {
      method: "PUT",
      body,
      headers: { "content-type": contentType, "content-length": String(contentLength), "x-amz-content-sha256": "UNSIGNED-PAYLOAD" },
      duplex: "half",
    } as RequestInit);
    // Both options go to fetch itself: without them undici clones the request to be able to follow a
    // redirect, which tees the body and keeps every chunk of the unread branch (the whole file).
    // A signed PUT is never redirected anyway. Node only: the Worker never sends a stream.
    const res = await fetch(signed, { signal: AbortSignal.timeout(timeoutMs), redirect: "error", window: null } as RequestInit);
    if (!res.ok) await this.fail(res, `put ${bucket}/${key}`);
    await res.body?.cancel();
  }

  async deleteObject(bucket: string, key: string): Promise<void> {
    const res = await this.send("DELETE", this.objectUrl(bucket, key));
    if (!res.ok && res.status !== 404) await this.fail(res, `delete ${bucket}/${key}`);
    await res.body?.cancel();
  }

  async headObject(bucket: string, key: string): Promise<{ size: number; contentType: string | null } | null> {
    const res = await this.send("HEAD", this.objectUrl(bucket, key));
    if (res.status === 404) return null;
    if (!res.ok) await this.fail(res, `head ${bucket}/${key}`);
    return { size: Number(res.headers.get("content-length") ?? 0), contentType: res.headers.get("content-type") };
  }
}
