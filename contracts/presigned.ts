import { z } from "zod";
import { ERROR_BODY_BYTES, readTextAtMost } from "./bounded-read";
import { httpUrlSchema } from "./request-fields";

/**
 * `s3_presigned` sources and outputs (docs/api.md, "Presigned sources and outputs"): the customer
 * hands the service a GET URL for the source and one PUT URL per output file instead of bucket
 * credentials. A presigned URL's query string carries its signature, so it is a secret like a
 * connection's secret key: the Job, its list row, webhooks, logs and error messages only ever show
 * the URL with its query string cut off (`redactUrl`); the full URLs are sealed at rest and reach
 * the runner only in its task's `presigned` grant. Shared by the Worker (create) and the runner.
 */

export const PRESIGNED_SOURCE_TYPE = "s3_presigned";

/**
 * A URL must stay valid at least this long after create, or create refuses it (422 `urlExpiresTooSoon`):
 * long enough for a queued job to be leased and to run. A job that outlives it fails `presigned_url_expired`.
 */
export const PRESIGNED_MIN_VALIDITY_SEC = 60 * 60;

/** The job's failure code when a presigned URL expired before the runner used it (never retried: a retry cannot renew it). */
export const PRESIGNED_URL_EXPIRED = "presigned_url_expired";
/** An output URL refused with 403 for another reason than expiry (never retried). */
export const OUTPUT_ACCESS_DENIED = "output_access_denied";

/**
 * The service types whose jobs take `sourceType: "s3_presigned"` (the rest answer 422
 * `presignedNotSupported`). Metadata, summarization and the indexer read only transcripts and write
 * no files: they have nothing to presign.
 */
export const PRESIGNED_SERVICE_TYPES: ReadonlySet<string> = new Set([
  "transcription",
  "thumbnail",
  "clip_generation",
  "translation",
  "voice_creation",
  "dubbing",
]);

/** Long enough for a SigV4 URL with a session token (typically 1–2 KB). */
const MAX_URL_CHARS = 8192;

/** An absolute http(s) URL; https and the address rules are decided at create against the environment. */
export const PresignedUrlSchema = httpUrlSchema(MAX_URL_CHARS, "must be an absolute URL starting with https://");

/** The most URLs one list of the variable-count scheme takes (clips: up to 1,000 per job). */
export const MAX_OUTPUT_URLS_PER_KIND = 1000;

/** One kind's list in the variable-count scheme (docs/api.md): file n of the kind goes to the n-th URL. */
export const PresignedUrlListSchema = z.array(PresignedUrlSchema).min(1).max(MAX_OUTPUT_URLS_PER_KIND);

/** A request's `outputUrls`: one URL per named file, or one list per kind of file (clips, thumbnails). */
export type OutputUrls = Readonly<Record<string, string | readonly string[]>>;

/** The name the runner uploads file `index` (0-based) of a kind by, and the detail path's tail: `video.0`. */
export const listedOutput = (kind: string, index: number): string => `${kind}.${index}`;

/** One URL per output name, lists spread out as `kind.index`: the grant's and the probes' form. */
export function flattenOutputUrls(outputUrls: OutputUrls): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, v] of Object.entries(outputUrls)) {
    if (typeof v === "string") out[name] = v;
    else v.forEach((url, i) => (out[listedOutput(name, i)] = url));
  }
  return out;
}

/** `outputUrls` as the job shows it: the same shape, every URL redacted. */
export function redactOutputUrls(outputUrls: OutputUrls): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(outputUrls).map(([name, v]) => [name, typeof v === "string" ? redactUrl(v) : v.map((u) => redactUrl(u))]),
  );
}

/** The URL without its query string (the signature) or fragment: what the service ever shows or logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}${u.search ? "?…redacted" : ""}`;
  } catch {
    // Not a URL: show nothing of it rather than risk showing a secret.
    return "(invalid URL)";
  }
}

/** `20261123T162000Z` → epoch ms, or null. */
function parseAmzDate(v: string): number | null {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return Date.UTC(y, mo - 1, d, h, mi, s);
}

/**
 * When the URL stops working, where its format states it: SigV4 query signing (`X-Amz-Date` +
 * `X-Amz-Expires`, as AWS S3, R2, MinIO and GCS's XML API sign) or SigV2-style `Expires` (epoch
 * seconds). Null when the URL states no expiry (the service then cannot refuse it early).
 */
export function presignedExpiry(url: string): Date | null {
  let q: URLSearchParams;
  try {
    q = new URL(url).searchParams;
  } catch {
    return null;
  }
  const get = (name: string) => [...q].find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const date = get("X-Amz-Date");
  const expires = get("X-Amz-Expires");
  if (date !== undefined && expires !== undefined) {
    const start = parseAmzDate(date);
    const seconds = /^\d{1,9}$/.test(expires) ? Number(expires) : Number.NaN;
    return start === null || Number.isNaN(seconds) ? null : new Date(start + seconds * 1000);
  }
  const v2 = get("Expires");
  return v2 !== undefined && /^\d{1,12}$/.test(v2) ? new Date(Number(v2) * 1000) : null;
}

/** S3 and R2 answer an expired presigned URL 403 with `<Message>Request has expired</Message>`. */
export function isExpiredRefusal(status: number, body: string): boolean {
  return status === 403 && /expired/i.test(body);
}

/**
 * The runner call through which a presigned clip or thumbnail job's step reads its transcript (with
 * word timings): a bucket job's transcript is handed over as a scratch object in its bucket, and a
 * presigned job has none.
 */
export const HANDOVER_TRANSCRIPT_CALL = "handover.transcript";

/**
 * What the runner receives in `task.presigned`: the job's full URLs (signatures included). The
 * output names are those of the service's `outputUrls` (for transcription `fullText`, `segments`,
 * `srt`, `vtt`).
 */
export const PresignedGrantSchema = z.object({
  sourceUrl: z.string().nullable(),
  outputUrls: z.record(z.string(), z.string()),
});
export type PresignedGrant = z.infer<typeof PresignedGrantSchema>;

/**
 * The start of a refusal's body (S3 explains a 403 there: expired, bad signature): at most 4 KiB
 * are read, the rest of the stream is cancelled, however much the server means to send.
 */
export function refusalBody(res: Response): Promise<string> {
  return readTextAtMost(res, ERROR_BODY_BYTES);
}

/** An error's words without the URL (and its signature) it may quote. */
export function scrubbedError(err: unknown, url: string): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.split(url).join(redactUrl(url));
}
