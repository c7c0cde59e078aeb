import { withRetry } from "../../contracts/retry";
import { StepFailure } from "../handler";

/**
 * The one HTTP client of engines reached over the network (OpenAI-compatible servers, Workers AI,
 * Replicate, for every capability: speech, image, text, embeddings, translation, tts, diarization).
 *
 * - Each attempt has its own timeout, which the caller sets shorter than the runner's lease (the
 *   factory derives it from the lease), so a hung server can never outlive the task's lease.
 * - 429, 408 and 5xx answers and network errors are retried with capped exponential backoff,
 *   honouring Retry-After (contracts/retry.ts). Other 4xx answers are the request's fault (bad key,
 *   unsupported file) and fail at once, not retryable.
 * - The task's signal (cancel, lease loss, hard shutdown) aborts the attempt in flight and the wait
 *   before the next one; the call then rejects with the signal's reason, never with a StepFailure.
 * - Every error names the engine and model and carries at most a short excerpt of the answer:
 *   `openai-compatible (whisper-1): HTTP 503 after 3 attempts: model is loading`.
 */
export interface RetryPolicy {
  /** Total attempts including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt, reading the answer included. Keep it shorter than the runner's lease. */
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, timeoutMs: 45_000 };

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** A failed call. `status` is the last HTTP status, absent when no answer came (network, timeout). */
export class EngineRequestError extends StepFailure {
  constructor(
    message: string,
    retryable: boolean,
    readonly status: number | undefined,
  ) {
    super("processing_failed", message, retryable);
    this.name = "EngineRequestError";
  }
}

export interface EngineHttpOptions {
  /** Engine and model, as recorded on results: both appear in every error. */
  engine: string;
  model: string;
  /** Prefix of every relative path, e.g. `https://api.replicate.com/v1`. */
  baseUrl: string;
  /** Sent with every request (authorization). */
  headers?: Record<string, string>;
  policy: RetryPolicy;
}

export interface RequestOptions {
  /** The task's signal: aborting it abandons the call. */
  signal: AbortSignal;
  method?: string;
  headers?: Record<string, string>;
  /** Overrides the policy's attempts for this call (1 = no retry). */
  attempts?: number;
}

export interface SendOptions extends RequestOptions {
  /** Built per attempt, because streamed and FormData bodies can be sent only once. */
  body?: () => BodyInit | Promise<BodyInit>;
}

export interface JsonOptions extends RequestOptions {
  /** Serialised once, sent as `application/json`. Absent: no body (the method defaults to GET). */
  body?: unknown;
}

/** One attempt's failure, before the retry loop decides what it means. */
class AttemptFailure extends Error {
  constructor(
    readonly what: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfter?: string | null,
    readonly reason?: string,
  ) {
    super(what);
  }
}

const MAX_REASON = 200;

export class EngineHttpClient {
  readonly engine: string;
  readonly model: string;
  private readonly baseUrl: string;

  constructor(private readonly opts: EngineHttpOptions) {
    this.engine = opts.engine;
    this.model = opts.model;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
  }

  /** An absolute URL is used as is (e.g. a polling URL the API handed out). */
  url(path: string): string {
    return /^https?:\/\//.test(path) ? path : `${this.baseUrl}${path.startsWith("/") ? "" : "/"}${path}`;
  }

  /**
   * Sends with retries and hands the first 2xx answer to `read`, inside the attempt: the timeout
   * covers reading the body, and a body cut off mid-way is retried like any network error.
   */
  async send<T>(path: string, opts: SendOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const url = this.url(path);
    const { policy } = this.opts;
    const attempts = Math.max(1, opts.attempts ?? policy.attempts);
    let made = 0;
    try {
      return await withRetry(
        async () => {
          made += 1;
          return await this.attempt(url, opts, read);
        },
        {
          retries: attempts - 1,
          baseMs: policy.baseDelayMs,
          maxMs: policy.maxDelayMs,
          signal: opts.signal,
          shouldRetry: (err) => err instanceof AttemptFailure && err.retryable,
          retryAfter: (err) => (err instanceof AttemptFailure ? err.retryAfter : undefined),
        },
      );
    } catch (err) {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (!(err instanceof AttemptFailure)) throw err;
      const tail = err.reason ? `: ${err.reason}` : "";
      if (!err.retryable) throw new EngineRequestError(this.describe(`rejected with ${err.what}${tail}`), false, err.status);
      throw new EngineRequestError(this.describe(`${err.what} after ${made} attempt${made === 1 ? "" : "s"}${tail}`), true, err.status);
    }
  }

  /** A JSON request (the body serialised once) answered with JSON. */
  async json(path: string, opts: JsonOptions): Promise<unknown> {
    const { body, ...rest } = opts;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return this.send(
      path,
      {
        ...rest,
        method: opts.method ?? (payload === undefined ? "GET" : "POST"),
        headers: { accept: "application/json", ...(payload === undefined ? {} : { "content-type": "application/json" }), ...opts.headers },
        ...(payload === undefined ? {} : { body: () => payload }),
      },
      (res) => this.readJson(res),
    );
  }

  /** A multipart/form-data POST (the form built per attempt) answered with JSON. */
  async multipart(path: string, form: () => FormData | Promise<FormData>, opts: RequestOptions): Promise<unknown> {
    return this.send(
      path,
      { ...opts, method: opts.method ?? "POST", headers: { accept: "application/json", ...opts.headers }, body: form },
      (res) => this.readJson(res),
    );
  }

  /** A failure that names this engine and model, for answers that arrived but make no sense. */
  failure(message: string, retryable = true): EngineRequestError {
    return new EngineRequestError(this.describe(message), retryable, undefined);
  }

  private describe(message: string): string {
    return `${this.engine} (${this.model}): ${message}`;
  }

  private async attempt<T>(url: string, opts: SendOptions, read: (res: Response) => Promise<T>): Promise<T> {
    const { timeoutMs } = this.opts.policy;
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([opts.signal, timeout]);
    const noAnswer = (err: unknown): never => {
      if (opts.signal.aborted) throw opts.signal.reason;
      if (timeout.aborted) throw new AttemptFailure(`no answer within ${timeoutMs} ms`, true);
      throw new AttemptFailure("network error", true, undefined, null, short(describeError(err)));
    };
    let res: Response;
    try {
      const body = opts.body ? await opts.body() : undefined;
      res = await fetch(url, {
        method: opts.method ?? "GET",
        headers: { ...this.opts.headers, ...opts.headers },
        ...(body === undefined ? {} : { body }),
        signal,
      });
    } catch (err) {
      return noAnswer(err);
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      throw new AttemptFailure(
        `HTTP ${res.status}`,
        isRetryableStatus(res.status),
        res.status,
        res.headers.get("retry-after"),
        reasonOf(text),
      );
    }
    try {
      return await read(res);
    } catch (err) {
      if (err instanceof StepFailure) throw err;
      return noAnswer(err);
    }
  }

  private async readJson(res: Response): Promise<unknown> {
    const text = await res.text();
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw this.failure(`answered HTTP ${res.status} with a body that is not JSON: ${short(text) || "(empty)"}`);
    }
  }
}

/** The message an API put in its error body (OpenAI, Cloudflare and Replicate shapes), or the text. */
function reasonOf(text: string): string {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return short(text);
  }
  const o = (body ?? {}) as Record<string, unknown>;
  const err = o.error as Record<string, unknown> | string | undefined;
  const errors = Array.isArray(o.errors)
    ? (o.errors as { message?: unknown }[]).map((e) => e?.message).filter((m) => typeof m === "string")
    : [];
  const candidates = [typeof err === "string" ? err : err?.message, errors.join("; "), o.detail, o.message, o.title];
  const found = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "");
  return short(found ?? text);
}

function short(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON)}…` : flat;
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}
