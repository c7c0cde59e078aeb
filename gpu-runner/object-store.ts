import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import {
  isExpiredRefusal,
  OUTPUT_ACCESS_DENIED,
  PRESIGNED_URL_EXPIRED,
  presignedExpiry,
  refusalBody,
  scrubbedError,
  redactUrl,
  type PresignedGrant,
} from "../contracts/presigned";
import { isRedirectError, isRedirectStatus } from "../contracts/redirects";
import type { LeasedTask } from "../contracts/runner-protocol";
import type { S3Client } from "../contracts/s3-client";
import { isStepFailure } from "../contracts/step-failure";
import { StepFailure } from "../contracts/step-failure";
import { guardedFetch } from "./net/guarded-fetch";
import { parseStepSettings } from "./step-input";
import { downloadObject, saveBody, uploadObject, type DownloadLimits, type UploadBody } from "./objects";
import { assertPublicHost, openStorage, type StorageGuard } from "./storage";

/**
 * Where a job's source comes from and its output files go, whatever the job's source type: the
 * customer's bucket (`s3_direct`, through the task's storage grant) or presigned URLs
 * (`s3_presigned`, through the task's presigned grant). A handler names files, never locations:
 * `source` for the source, and the output names of its contract (transcription: `fullText`,
 * `segments`, `srt`, `vtt`). Both stores stream from and to disk and report the same failure codes,
 * connect only through the runner's guarded fetch (net/guarded-fetch.ts), never follow a redirect
 * (`redirect_refused`), and bound every download (`source_too_large`, `insufficient_disk`).
 */

export type { DownloadLimits, UploadBody };

/** The download bounds of the task's platform settings (`runner.maxSourceBytes`, `runner.minFreeDiskBytes`). */
export function downloadLimits(task: Pick<LeasedTask, "settings">): DownloadLimits {
  const { runner } = parseStepSettings(task.settings, ["runner"]);
  return { maxBytes: runner.maxSourceBytes, minFreeDiskBytes: runner.minFreeDiskBytes };
}

export interface ObjectStore {
  /** Streams the named object (the job's source: `source`) to `path`; resolves to its size in bytes. */
  download(name: string, path: string, signal: AbortSignal): Promise<number>;
  /** Writes the named output; resolves to where it went as the job may show it (a key, or a redacted URL). */
  upload(name: string, body: UploadBody, contentType: string): Promise<string>;
}

/** The name handlers download a job's source by. */
export const SOURCE = "source";

/**
 * The bucket store: names are looked up in `keys` (e.g. `{ source: sourceKey, ...resolvedOutputKeys }`);
 * a name not in `keys` is used as an object key itself (services whose keys are computed at run time).
 */
export class BucketStore implements ObjectStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
    private readonly keys: Readonly<Record<string, string>>,
    private readonly limits: DownloadLimits,
  ) {}

  private key(name: string): string {
    return Object.hasOwn(this.keys, name) ? (this.keys[name] as string) : name;
  }

  download(name: string, path: string, signal: AbortSignal): Promise<number> {
    return downloadObject(this.s3, this.bucket, this.key(name), path, signal, this.limits);
  }

  async upload(name: string, body: UploadBody, contentType: string): Promise<string> {
    const key = this.key(name);
    await uploadObject(this.s3, this.bucket, key, body, contentType);
    return key;
  }
}

/** A file as a request body: its stream (read as sent) and its length (so the request is not chunked). */
class FileBody {
  constructor(
    readonly path: string,
    readonly length: number,
  ) {}

  stream(): ReadableStream<Uint8Array> {
    return Readable.toWeb(createReadStream(this.path)) as ReadableStream<Uint8Array>;
  }
}

async function fileBody(path: string): Promise<FileBody> {
  return new FileBody(path, (await stat(path)).size);
}

/** A single GET or PUT may take long on a large file; the lease's heartbeats keep the job alive meanwhile. */
const TRANSFER_TIMEOUT_MS = 60 * 60 * 1000;

export interface PresignedStoreOptions {
  guard: StorageGuard;
  limits: DownloadLimits;
  /** Tests observe what is sent; production uses the guarded fetch of `guard`. */
  fetch?: typeof fetch;
  now?: () => number;
}

/**
 * The presigned store: GET of `sourceUrl`, PUT to `outputUrls[name]`, with the address check before
 * each connection. A URL whose stated expiry has passed is not even tried; a 403 that says the
 * request expired fails the job `presigned_url_expired` (final: a retry cannot renew a signature).
 * Messages quote URLs redacted only.
 */
export class PresignedStore implements ObjectStore {
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  constructor(
    private readonly grant: PresignedGrant,
    private readonly opts: PresignedStoreOptions,
  ) {
    this.fetch = opts.fetch ?? guardedFetch(opts.guard);
    this.now = opts.now ?? Date.now;
  }

  async download(name: string, path: string, signal: AbortSignal): Promise<number> {
    const url = name === SOURCE ? this.grant.sourceUrl : null;
    if (!url) throw new StepFailure("processing_failed", `the job has no presigned URL to read ${name} from`, false);
    await this.beforeConnecting(url, SOURCE);
    let res: Response;
    try {
      res = await this.fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(TRANSFER_TIMEOUT_MS)]), redirect: "manual" });
    } catch (err) {
      if (signal.aborted || isStepFailure(err)) throw err;
      throw new StepFailure("processing_failed", `download of ${redactUrl(url)} failed: ${scrubbedError(err, url)}`, true);
    }
    if (isRedirectStatus(res.status)) throw await redirectRefused(res, `reading the source ${redactUrl(url)}`);
    if (!res.ok) {
      const body = await refusalBody(res);
      if (isExpiredRefusal(res.status, body)) throw expired(url, SOURCE);
      if (res.status === 404) throw new StepFailure("source_not_found", `source ${redactUrl(url)} does not exist (HTTP 404)`, false);
      if (res.status === 401 || res.status === 403)
        throw new StepFailure("source_access_denied", `reading ${redactUrl(url)} was refused (HTTP ${res.status})`, false);
      throw new StepFailure("processing_failed", `download of ${redactUrl(url)} failed (HTTP ${res.status})`, retryableStatus(res.status));
    }
    return saveBody(res, path, this.opts.limits, signal, `the source ${redactUrl(url)}`);
  }

  async upload(name: string, body: UploadBody, contentType: string): Promise<string> {
    const url = Object.hasOwn(this.grant.outputUrls, name) ? this.grant.outputUrls[name] : undefined;
    if (!url) throw new StepFailure("processing_failed", `the job has no presigned URL for output ${name}`, false);
    await this.beforeConnecting(url, name);
    const file = typeof body === "string" || body instanceof Uint8Array ? null : await fileBody(body.path);
    const bytes = file ? null : typeof body === "string" ? Buffer.from(body, "utf8") : (body as Uint8Array);
    const length = file ? file.length : (bytes as Uint8Array).byteLength;
    let res: Response;
    try {
      res = await this.fetch(url, {
        method: "PUT",
        // A file goes as a stream with its length: never whole in memory, and never chunked (S3 refuses chunked PUTs).
        body: file ? file.stream() : (bytes as Uint8Array<ArrayBuffer>),
        headers: { "content-type": contentType, "content-length": String(length) },
        signal: AbortSignal.timeout(TRANSFER_TIMEOUT_MS),
        // Never followed: a 307/308 would send the body on to wherever it points. A stream goes with
        // `error` and no window: otherwise undici clones the request to be able to follow a redirect,
        // which tees the body and keeps every chunk of the unread branch (a 512 MiB file grew the heap
        // by 518 MiB, 40 MiB with them; bench/presigned-upload.ts). Small bodies get the 3xx itself.
        ...(file ? { redirect: "error", window: null, duplex: "half" } : { redirect: "manual" }),
      } as RequestInit);
    } catch (err) {
      if (isStepFailure(err)) throw err;
      if (file && isRedirectError(err)) throw await redirectRefused(null, `writing output ${name} to ${redactUrl(url)}`);
      throw new StepFailure("processing_failed", `upload of ${name} to ${redactUrl(url)} failed: ${scrubbedError(err, url)}`, true);
    }
    if (isRedirectStatus(res.status)) throw await redirectRefused(res, `writing output ${name} to ${redactUrl(url)}`);
    if (!res.ok) {
      const text = await refusalBody(res);
      if (isExpiredRefusal(res.status, text)) throw expired(url, name);
      if (res.status === 401 || res.status === 403)
        throw new StepFailure(OUTPUT_ACCESS_DENIED, `writing output ${name} to ${redactUrl(url)} was refused (HTTP ${res.status})`, false);
      throw new StepFailure(
        "processing_failed",
        `upload of ${name} to ${redactUrl(url)} failed (HTTP ${res.status})`,
        retryableStatus(res.status),
      );
    }
    await res.body?.cancel();
    return redactUrl(url);
  }

  private async beforeConnecting(url: string, name: string): Promise<void> {
    const expiry = presignedExpiry(url);
    if (expiry && expiry.getTime() <= this.now()) throw expired(url, name);
    await assertPublicHost(url, this.opts.guard, "the presigned URL's host");
  }
}

function expired(url: string, name: string): StepFailure {
  const expiry = presignedExpiry(url);
  return new StepFailure(
    PRESIGNED_URL_EXPIRED,
    `the presigned URL for ${name} has expired${expiry ? ` (at ${expiry.toISOString()})` : ""}: ${redactUrl(url)}`,
    false,
  );
}

const retryableStatus = (status: number): boolean => status >= 500 || status === 429 || status === 408;

/**
 * `redirect_refused` (final): the message names what was read or written and the status, never
 * where the redirect pointed nor its body (which is not read). `res` is null when the redirect
 * surfaced as a network error (a streamed PUT).
 */
async function redirectRefused(res: Response | null, what: string): Promise<StepFailure> {
  await res?.body?.cancel().catch(() => undefined);
  return new StepFailure(
    "redirect_refused",
    `${what} was refused: the server answered with a redirect (HTTP ${res?.status ?? "3xx"}), which the runner does not follow`,
    false,
  );
}

/**
 * The task's store: its presigned URLs when the job has them, else its bucket (`keys` maps the
 * handler's names to object keys there). Downloads keep the task's settings' bounds.
 */
export async function openObjectStore(task: LeasedTask, guard: StorageGuard, keys: Readonly<Record<string, string>>): Promise<ObjectStore> {
  const limits = downloadLimits(task);
  if (task.presigned) return new PresignedStore(task.presigned, { guard, limits });
  const s3 = await openStorage(task.storage, guard);
  const bucket = task.storage?.bucket ?? "";
  return new BucketStore(s3, bucket, keys, limits);
}
