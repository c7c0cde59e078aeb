import {
  callEngine,
  describeFailure,
  EngineRequestError,
  readJson,
  type EngineCallOptions,
  type RetryPolicy,
} from "../../contracts/engine-http";

/**
 * The one HTTP client of engines reached over the network (OpenAI-compatible servers, Workers AI,
 * Replicate, for every capability: speech, image, text, category, translation, tts, diarization),
 * on the request rules every engine client shares (contracts/engine-http.ts: a timeout per
 * attempt, retries of 429, 408, 5xx and network errors honouring Retry-After, no retry of other
 * 4xx, the task's signal abandoning the call with its reason, errors naming engine and model).
 *
 * The timeout per attempt is set shorter than the runner's lease (the factory derives it from the
 * lease), so a hung server can never outlive the task's lease; the task's signal is its cancel,
 * lease loss or hard shutdown.
 */
export type { RetryPolicy } from "../../contracts/engine-http";

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, timeoutMs: 45_000 };

export interface EngineHttpOptions {
  /** Engine and model, as recorded on results: both appear in every error. */
  engine: string;
  model: string;
  /** Prefix of every relative path, e.g. `https://api.replicate.com/v1`. */
  baseUrl: string;
  /** Sent with every request (authorization). */
  headers?: Record<string, string>;
  policy: RetryPolicy;
  /** Default: the global fetch. Fetches of engines' output files pass the runner's guarded fetch (engines/output-files.ts). */
  fetch?: typeof fetch;
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

export class EngineHttpClient {
  readonly engine: string;
  readonly model: string;
  private readonly baseUrl: string;
  private readonly call: EngineCallOptions;

  constructor(private readonly opts: EngineHttpOptions) {
    this.engine = opts.engine;
    this.model = opts.model;
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.call = {
      engine: opts.engine,
      model: opts.model,
      policy: opts.policy,
      ...(opts.fetch ? { fetch: opts.fetch } : {}),
      error: (message, retryable, status) => new EngineRequestError(message, retryable, status),
    };
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
    const request = async (): Promise<RequestInit> => {
      const body = opts.body ? await opts.body() : undefined;
      return { method: opts.method ?? "GET", headers: { ...this.opts.headers, ...opts.headers }, ...(body === undefined ? {} : { body }) };
    };
    return callEngine(this.url(path), request, read, { ...this.call, signal: opts.signal, attempts: opts.attempts });
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
      (res) => readJson(res, this.call),
    );
  }

  /** A multipart/form-data POST (the form built per attempt) answered with JSON. */
  async multipart(path: string, form: () => FormData | Promise<FormData>, opts: RequestOptions): Promise<unknown> {
    return this.send(
      path,
      { ...opts, method: opts.method ?? "POST", headers: { accept: "application/json", ...opts.headers }, body: form },
      (res) => readJson(res, this.call),
    );
  }

  /** A failure that names this engine and model, for answers that arrived but make no sense. */
  failure(message: string, retryable = true): EngineRequestError {
    return new EngineRequestError(describeFailure(this.engine, this.model, message), retryable, undefined);
  }
}
