import { createReadStream, createWriteStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
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
import type { LeasedTask } from "../contracts/runner-protocol";
import type { S3Client } from "../contracts/s3-client";
import { StepFailure } from "./handler";
import { downloadObject, uploadObject, type UploadBody } from "./services/shared/objects";
import { assertPublicHost, openStorage, type StorageGuard } from "./storage";

/**
 * Where a job's source comes from and its output files go, whatever the job's source type: the
 * customer's bucket (`s3_direct`, through the task's storage grant) or presigned URLs
 * (`s3_presigned`, through the task's presigned grant). A handler names files, never locations:
 * `source` for the source, and the output names of its contract (transcription: `fullText`,
 * `segments`, `srt`, `vtt`). Both stores stream from and to disk and report the same failure codes.
 */

export type { UploadBody };

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
  ) {}

  private key(name: string): string {
    return Object.hasOwn(this.keys, name) ? (this.keys[name] as string) : name;
  }

  download(name: string, path: string, signal: AbortSignal): Promise<number> {
    return downloadObject(this.s3, this.bucket, this.key(name), path, signal);
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
  /** Tests observe what is sent; production uses the global fetch. */
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
    this.fetch = opts.fetch ?? fetch;
    this.now = opts.now ?? Date.now;
  }

  async download(name: string, path: string, signal: AbortSignal): Promise<number> {
    const url = name === SOURCE ? this.grant.sourceUrl : null;
    if (!url) throw new StepFailure("processing_failed", `the job has no presigned URL to read ${name} from`, false);
    await this.beforeConnecting(url, SOURCE);
    let res: Response;
    try {
      res = await this.fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(TRANSFER_TIMEOUT_MS)]) });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new StepFailure("processing_failed", `download of ${redactUrl(url)} failed: ${scrubbedError(err, url)}`, true);
    }
    if (!res.ok) {
      const body = await refusalBody(res);
      if (isExpiredRefusal(res.status, body)) throw expired(url, SOURCE);
      if (res.status === 404) throw new StepFailure("source_not_found", `source ${redactUrl(url)} does not exist (HTTP 404)`, false);
      if (res.status === 401 || res.status === 403)
        throw new StepFailure("source_access_denied", `reading ${redactUrl(url)} was refused (HTTP ${res.status})`, false);
      throw new StepFailure("processing_failed", `download of ${redactUrl(url)} failed (HTTP ${res.status})`, retryableStatus(res.status));
    }
    if (!res.body) throw new StepFailure("processing_failed", "download returned no body", true);
    try {
      await pipeline(Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>), createWriteStream(path), { signal });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new StepFailure("processing_failed", `download of ${redactUrl(url)} was interrupted: ${scrubbedError(err, url)}`, true);
    }
    return (await stat(path)).size;
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
        // Without both, undici clones the request to be able to follow a redirect, which tees the body
        // stream and keeps every chunk of the unread branch: a 512 MiB file grew the heap by 518 MiB
        // (40 MiB with them; bench/presigned-upload.ts). A presigned PUT is never redirected anyway.
        redirect: "error",
        window: null,
        ...(file ? { duplex: "half" } : {}),
      } as RequestInit);
    } catch (err) {
      throw new StepFailure("processing_failed", `upload of ${name} to ${redactUrl(url)} failed: ${scrubbedError(err, url)}`, true);
    }
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
 * The task's store: its presigned URLs when the job has them, else its bucket (`keys` maps the
 * handler's names to object keys there).
 */
export async function openObjectStore(task: LeasedTask, guard: StorageGuard, keys: Readonly<Record<string, string>>): Promise<ObjectStore> {
  if (task.presigned) return new PresignedStore(task.presigned, { guard });
  const s3 = await openStorage(task.storage, guard);
  const bucket = task.storage?.bucket ?? "";
  return new BucketStore(s3, bucket, keys);
}
