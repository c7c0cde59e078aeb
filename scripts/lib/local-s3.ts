import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";

/**
 * A local S3 for tests and the demo: s3rver stores objects on disk, and a SigV4 check runs in front
 * of it. s3rver itself only looks up the access key id of a V4 request and never verifies the
 * signature, so without this check a wrong secret would be accepted and tests of credential
 * handling would prove nothing. The check is written from the AWS SigV4 specification with
 * node:crypto (not with the client's own signer) so it is an independent witness.
 */
export interface LocalS3 {
  endpoint: string;
  region: "us-east-1";
  accessKeyId: "S3RVER";
  secretAccessKey: "S3RVER";
  /** Where objects live on disk (s3rver's layout). */
  dir: string;
  /**
   * Sends this server's event notifications (the S3 event JSON of each object created or deleted)
   * to `url`, as a MinIO webhook target with `auth_token` does: a POST with
   * `Authorization: Bearer <authToken>`, for keys under `prefix` ending with `suffix`.
   */
  addEventTarget(target: EventTarget): void;
  /** Resolves once every notification sent so far has been answered (tests wait on it). */
  eventsSettled(): Promise<void>;
  close(): Promise<void>;
}

export interface EventTarget {
  bucket: string;
  url: string;
  authToken: string;
  prefix?: string;
  suffix?: string;
}

/** One record of s3rver's `event` (the AWS S3 event shape, its key not yet URL-encoded). */
interface S3rverEvent {
  Records: Array<{ eventName: string; s3: { bucket: { name: string }; object: { key: string } } }>;
}

export interface LocalS3Options {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Storage directory; a fresh temporary one (removed on close) when omitted. */
  dir?: string;
  buckets: string[];
  /**
   * Object key prefixes (`bucket/prefix`) that refuse writes with 403 AccessDenied, as a bucket
   * policy would: lets tests make an upload fail after the download succeeded.
   */
  readOnlyPrefixes?: string[];
}

/** s3rver's built-in account: the only credentials it knows. */
const CREDENTIALS: Readonly<Record<string, string>> = { S3RVER: "S3RVER" };
const REGION = "us-east-1";

export async function startLocalS3(opts: LocalS3Options): Promise<LocalS3> {
  const ownDir = opts.dir === undefined;
  const dir = opts.dir ?? (await mkdtemp(path.join(os.tmpdir(), "local-s3-")));
  const s3rver = new S3rver({
    silent: true,
    directory: dir,
    vhostBuckets: false,
    configureBuckets: opts.buckets.map((name) => ({ name })),
  });
  await s3rver.configureBuckets();
  const handle = s3rver.callback();
  const targets: EventTarget[] = [];
  const inFlight = new Set<Promise<void>>();
  // AWS and MinIO send keys URL-encoded with `+` for a space; s3rver sends them raw.
  s3rver.on("event", (event: S3rverEvent) => {
    for (const record of event.Records) {
      const { key } = record.s3.object;
      const bucket = record.s3.bucket.name;
      const body = JSON.stringify({
        Records: [{ ...record, s3: { ...record.s3, object: { ...record.s3.object, key: encodeURIComponent(key).replace(/%20/g, "+") } } }],
      });
      for (const t of targets) {
        if (t.bucket !== bucket || !key.startsWith(t.prefix ?? "") || !key.endsWith(t.suffix ?? "")) continue;
        const sent = fetch(t.url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${t.authToken}` },
          body,
          signal: AbortSignal.timeout(30_000),
        })
          .then((res) => res.body?.cancel())
          .catch((err: unknown) => console.error(`local S3: event to ${t.url} failed: ${String(err)}`))
          .finally(() => inFlight.delete(sent));
        inFlight.add(sent);
      }
    }
  });

  const server = createServer((req, res) => {
    const problem = verifySigV4(req);
    if (problem) return deny(res, problem.code, problem.message);
    const target = decodeURIComponent(new URL(req.url ?? "/", "http://local").pathname.slice(1));
    if (req.method === "PUT" && opts.readOnlyPrefixes?.some((p) => target.startsWith(p))) return deny(res, "AccessDenied", "Access Denied");
    handle(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: REGION,
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    dir,
    addEventTarget: (t) => void targets.push(t),
    async eventsSettled() {
      await Promise.all([...inFlight]);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (ownDir) await rm(dir, { recursive: true, force: true });
    },
  };
}

function deny(res: ServerResponse, code: string, message: string): void {
  res.writeHead(403, { "content-type": "application/xml" });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
}

interface Problem {
  code: string;
  message: string;
}

const rfc3986 = (s: string): string => encodeURIComponent(s).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase());
const sha256Hex = (s: string): string => createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (key: Buffer | string, data: string): Buffer => createHmac("sha256", key).update(data, "utf8").digest();

/**
 * AWS4-HMAC-SHA256, header-signed (the project's client) or query-signed (presigned URLs, which a
 * customer hands an `s3_presigned` job); never V2.
 */
function verifySigV4(req: IncomingMessage): Problem | null {
  const auth = req.headers.authorization;
  if (!auth && new URL(req.url ?? "/", "http://local").searchParams.has("X-Amz-Signature")) return verifyPresigned(req);
  if (!auth) return { code: "AccessDenied", message: "Anonymous access is not allowed" };
  const m =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request,\s*SignedHeaders=([^,]+),\s*Signature=([0-9a-f]{64})$/.exec(
      auth,
    );
  if (!m) return { code: "AuthorizationHeaderMalformed", message: "The authorization header is malformed" };
  const [, accessKeyId = "", date = "", region = "", service = "", signedHeaders = "", signature = ""] = m;
  const secret = CREDENTIALS[accessKeyId];
  if (secret === undefined)
    return { code: "InvalidAccessKeyId", message: "The AWS Access Key Id you provided does not exist in our records." };
  const amzDate = header(req, "x-amz-date");
  if (!amzDate?.startsWith(date)) return { code: "AccessDenied", message: "x-amz-date does not match the credential scope" };

  const url = new URL(req.url ?? "/", "http://local");
  const canonicalUri = url.pathname
    .split("/")
    .map((seg) => rfc3986(safeDecode(seg)))
    .join("/");
  const canonicalQuery = [...url.searchParams]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const names = signedHeaders.split(";");
  if (!names.includes("host")) return { code: "AccessDenied", message: "host must be signed" };
  const canonicalHeaders = names.map((n) => `${n}:${(header(req, n) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const payloadHash = header(req, "x-amz-content-sha256") ?? "UNSIGNED-PAYLOAD";
  const canonicalRequest = [req.method ?? "GET", canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash].join("\n");
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
  const expected = createHmac("sha256", key).update(stringToSign, "utf8").digest();
  const given = Buffer.from(signature, "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided." };
  }
  return null;
}

/** A presigned URL: the signature covers the query (less the signature itself) and the payload is UNSIGNED-PAYLOAD. */
function verifyPresigned(req: IncomingMessage): Problem | null {
  const url = new URL(req.url ?? "/", "http://local");
  const q = url.searchParams;
  if (q.get("X-Amz-Algorithm") !== "AWS4-HMAC-SHA256")
    return { code: "AuthorizationQueryParametersError", message: "unsupported algorithm" };
  const [accessKeyId = "", date = "", region = "", service = ""] = (q.get("X-Amz-Credential") ?? "").split("/");
  const secret = CREDENTIALS[accessKeyId];
  if (secret === undefined)
    return { code: "InvalidAccessKeyId", message: "The AWS Access Key Id you provided does not exist in our records." };
  const amzDate = q.get("X-Amz-Date") ?? "";
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
  if (!m || !amzDate.startsWith(date)) return { code: "AuthorizationQueryParametersError", message: "X-Amz-Date is malformed" };
  const signedAt = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
  if (Date.now() > signedAt + Number(q.get("X-Amz-Expires") ?? "0") * 1000) return { code: "AccessDenied", message: "Request has expired" };
  const canonicalUri = url.pathname
    .split("/")
    .map((seg) => rfc3986(safeDecode(seg)))
    .join("/");
  const canonicalQuery = [...q]
    .filter(([k]) => k !== "X-Amz-Signature")
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak < bk ? -1 : ak > bk ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const signedHeaders = q.get("X-Amz-SignedHeaders") ?? "";
  const names = signedHeaders.split(";");
  if (!names.includes("host")) return { code: "AccessDenied", message: "host must be signed" };
  const canonicalHeaders = names.map((n) => `${n}:${(header(req, n) ?? "").trim().replace(/\s+/g, " ")}\n`).join("");
  const canonicalRequest = [req.method ?? "GET", canonicalUri, canonicalQuery, canonicalHeaders, signedHeaders, "UNSIGNED-PAYLOAD"].join(
    "\n",
  );
  const scope = `${date}/${region}/${service}/aws4_request`;
  const stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256Hex(canonicalRequest)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
  const expected = createHmac("sha256", key).update(stringToSign, "utf8").digest();
  const given = Buffer.from(q.get("X-Amz-Signature") ?? "", "hex");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { code: "SignatureDoesNotMatch", message: "The request signature we calculated does not match the signature you provided." };
  }
  return null;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(",") : v;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
