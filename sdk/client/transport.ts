import { errorFromResponse, MediaJobsError } from "./errors";
import { fillPath, OPERATIONS, type OperationId, type ParamsOf } from "./operations";
import { retryDelayMs } from "../../contracts/retry";
import { BOOKMARK_HEADER, newerBookmark } from "../../contracts/d1-bookmark";

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export const sleep: Sleep = (ms, signal) =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export interface TransportOptions {
  baseUrl: string;
  apiKey?: string | undefined;
  fetch?: typeof fetch | undefined;
  /** Extra attempts for a retryable operation after a 5xx or a network error. Default 2. */
  maxRetries?: number | undefined;
  /** First retry delay; doubled per attempt (with jitter), or the answer's `Retry-After`. Default 500 ms. */
  retryBaseMs?: number | undefined;
  /** Longest single retry wait the transport accepts from `Retry-After`. Default 30 s. */
  retryMaxMs?: number | undefined;
  /** Per attempt. Default 60 s. */
  timeoutMs?: number | undefined;
  sleep?: Sleep | undefined;
  /** A read-your-writes bookmark to start from (an earlier client's `bookmark`, e.g. saved by the CLI). */
  bookmark?: string | undefined;
  /** Called with each newer bookmark an answer brings (the CLI saves it for its next run). */
  onBookmark?: ((bookmark: string) => void) | undefined;
}

export interface CallArgs<Id extends OperationId> {
  params?: ParamsOf<Id>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
}

/** A file a route answers (an export): its bytes, and the headers that name and describe it. */
export interface FileResponse {
  bytes: Uint8Array;
  headers: Headers;
}

export interface Envelope<T> {
  data: T;
  metadata: Record<string, unknown>;
  headers: Headers;
}

/**
 * The one place requests are made: builds them from the operation table, parses the envelope,
 * turns failures into `MediaJobsError`, and retries what is safe to retry, boundedly. It carries the
 * read-your-writes bookmark forward (docs/api.md, "Read-your-writes: x-d1-bookmark"): the newest
 * `x-d1-bookmark` any answer brought goes with every request, so a read after a write sees it.
 */
export class Transport {
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly timeoutMs: number;
  readonly sleep: Sleep;
  private latestBookmark: string | null;

  constructor(private readonly opts: TransportOptions) {
    this.latestBookmark = opts.bookmark ?? null;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    // Bound so the global keeps its `this` in browsers (an unbound `fetch` throws "Illegal invocation").
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.maxRetries = opts.maxRetries ?? 2;
    this.retryBaseMs = opts.retryBaseMs ?? 500;
    this.retryMaxMs = opts.retryMaxMs ?? 30_000;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.sleep = opts.sleep ?? sleep;
  }

  /** The newest read-your-writes bookmark this client holds (null before the first answer). */
  get bookmark(): string | null {
    return this.latestBookmark;
  }

  private keepBookmark(res: Response): void {
    const newer = newerBookmark(this.latestBookmark, res.headers.get(BOOKMARK_HEADER));
    if (!newer || newer === this.latestBookmark) return;
    this.latestBookmark = newer;
    this.opts.onBookmark?.(newer);
  }

  url<Id extends OperationId>(id: Id, args: CallArgs<Id> = {}): string {
    const op = OPERATIONS[id];
    const path = fillPath(op.path, (args.params ?? {}) as Record<string, string>);
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(args.query ?? {})) if (v !== undefined && v !== "") query.set(k, String(v));
    const qs = query.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ""}`;
  }

  async call<T, Id extends OperationId = OperationId>(id: Id, args: CallArgs<Id> = {}): Promise<Envelope<T>> {
    const { res, bytes } = await this.send(id, args, "application/json");
    const parsed = parseJson(new TextDecoder().decode(bytes));
    if (parsed !== null && typeof parsed === "object" && "data" in parsed) {
      const env = parsed as { data: T; metadata?: Record<string, unknown> };
      return { data: env.data, metadata: env.metadata ?? {}, headers: res.headers };
    }
    throw new MediaJobsError({ status: res.status, code: "invalidResponse", message: `HTTP ${res.status} without an envelope` });
  }

  /** For a route that answers a file rather than the envelope: its bytes and headers. Errors still come as envelopes. */
  async file<Id extends OperationId>(id: Id, args: CallArgs<Id> = {}): Promise<FileResponse> {
    const { res, bytes } = await this.send(id, args, "*/*");
    return { bytes, headers: res.headers };
  }

  /** Sends the request, retrying what is safe to retry; resolves to a 2xx answer and its body, or throws its error. */
  private async send<Id extends OperationId>(id: Id, args: CallArgs<Id>, accept: string): Promise<{ res: Response; bytes: Uint8Array }> {
    const op = OPERATIONS[id];
    const headers: Record<string, string> = { accept, ...args.headers };
    if (op.auth === "project") {
      if (!this.opts.apiKey)
        throw new MediaJobsError({ status: 0, code: "missingApiKey", message: "an API key is required for this call" });
      headers["authorization"] = `Bearer ${this.opts.apiKey}`;
    }
    // Serialised once, so every retry sends the same bytes (the Idempotency-Key check compares bodies byte for byte).
    const body = args.body === undefined ? undefined : JSON.stringify(args.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    const url = this.url(id, args);

    for (let attempt = 0; ; attempt++) {
      // Read per attempt: a retry carries whatever newer bookmark arrived meanwhile.
      if (this.latestBookmark) headers[BOOKMARK_HEADER] = this.latestBookmark;
      const retriesLeft = op.retry ? this.maxRetries - attempt : 0;
      let res: Response;
      let bytes: Uint8Array;
      try {
        const signal = args.signal
          ? AbortSignal.any([args.signal, AbortSignal.timeout(this.timeoutMs)])
          : AbortSignal.timeout(this.timeoutMs);
        res = await this.fetchImpl(url, { method: op.method, headers, ...(body !== undefined ? { body } : {}), signal });
        bytes = new Uint8Array(await res.arrayBuffer());
      } catch (err) {
        if (args.signal?.aborted) throw args.signal.reason;
        if (retriesLeft > 0) {
          await this.sleep(this.backoff(attempt, null), args.signal);
          continue;
        }
        const message = err instanceof Error ? err.message : String(err);
        throw new MediaJobsError({ status: 0, code: "networkError", message: `${op.method} ${url}: ${message}`, cause: err });
      }
      // Error answers carry one too: a refused write still read the database at some point.
      this.keepBookmark(res);
      if (res.ok) return { res, bytes };
      const text = new TextDecoder().decode(bytes);
      const error = errorFromResponse(res.status, res.headers, parseJson(text), text);
      if (retriesLeft > 0 && this.retryable(id, res.status)) {
        await this.sleep(this.backoff(attempt, error.retryAfterMs), args.signal);
        continue;
      }
      throw error;
    }
  }

  private retryable(id: OperationId, status: number): boolean {
    if (status >= 500) return true;
    // Create's only 409 is "the first request with this Idempotency-Key is still in flight": trying again gets its answer.
    return id === "createJob" && status === 409;
  }

  private backoff(attempt: number, retryAfter: number | null): number {
    if (retryAfter !== null) return Math.min(retryAfter, this.retryMaxMs);
    // Retry number attempt+1, with "equal" jitter: at least half the exponential step.
    return Math.round(retryDelayMs({ attempt: attempt + 1, baseMs: this.retryBaseMs, maxMs: Number.POSITIVE_INFINITY }));
  }
}

function parseJson(text: string): unknown {
  try {
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}
