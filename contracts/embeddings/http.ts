import { withRetry } from "../retry";
import { StepFailure } from "../step-failure";

/**
 * The JSON POST of the hosted embedding clients, fetch only so it runs in the Worker too. It keeps
 * the rules (and the messages) of the runner's engine HTTP client (gpu-runner/engines/http.ts):
 * - each attempt has its own timeout;
 * - 429, 408, 5xx and network errors are retried with capped exponential backoff, honouring
 *   Retry-After (contracts/retry.ts); other 4xx answers fail at once, not retryable;
 * - the caller's signal aborts the attempt in flight and the wait; the call then rejects with the
 *   signal's reason;
 * - every error names engine and model, with a short excerpt of the answer:
 *   `openai-compatible (text-embedding-3-small): HTTP 503 after 3 attempts: model is loading`.
 */
export interface EmbeddingHttpPolicy {
  /** Total attempts including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt, reading the answer included. */
  timeoutMs: number;
}

export const DEFAULT_EMBEDDING_HTTP: EmbeddingHttpPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, timeoutMs: 30_000 };

/** A failed embedding call. `status` is the last HTTP status, absent when no answer came. */
export class EmbeddingRequestError extends StepFailure {
  constructor(
    message: string,
    retryable: boolean,
    readonly status?: number,
  ) {
    super("processing_failed", message, retryable);
  }
}

export interface PostJsonOptions {
  engine: string;
  model: string;
  url: string;
  body: unknown;
  headers?: Record<string, string>;
  policy: EmbeddingHttpPolicy;
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** `engine (model): message`. */
export function describeFailure(engine: string, model: string, message: string): string {
  return `${engine} (${model}): ${message}`;
}

/** Posts `body` as JSON and resolves with the first 2xx answer's JSON. */
export async function postJson(opts: PostJsonOptions): Promise<unknown> {
  const payload = JSON.stringify(opts.body);
  const attempts = Math.max(1, Math.floor(opts.policy.attempts));
  let made = 0;
  try {
    return await withRetry(
      async () => {
        made += 1;
        return await attempt(opts, payload);
      },
      {
        retries: attempts - 1,
        baseMs: opts.policy.baseDelayMs,
        maxMs: opts.policy.maxDelayMs,
        signal: opts.signal,
        shouldRetry: (err) => err instanceof AttemptFailure && err.retryable,
        retryAfter: (err) => (err instanceof AttemptFailure ? err.retryAfter : undefined),
      },
    );
  } catch (err) {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (!(err instanceof AttemptFailure)) throw err;
    const tail = err.reason ? `: ${err.reason}` : "";
    const say = (m: string) => describeFailure(opts.engine, opts.model, m);
    if (!err.retryable) throw new EmbeddingRequestError(say(`rejected with ${err.what}${tail}`), false, err.status);
    throw new EmbeddingRequestError(say(`${err.what} after ${made} attempt${made === 1 ? "" : "s"}${tail}`), true, err.status);
  }
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

function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

async function attempt(opts: PostJsonOptions, payload: string): Promise<unknown> {
  const { timeoutMs } = opts.policy;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const noAnswer = (err: unknown): never => {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (timeout.aborted) throw new AttemptFailure(`no answer within ${timeoutMs} ms`, true);
    throw new AttemptFailure("network error", true, undefined, null, short(describeError(err)));
  };
  const doFetch = opts.fetch ?? fetch;
  let res: Response;
  let text: string;
  try {
    res = await doFetch(opts.url, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json", ...opts.headers },
      body: payload,
      signal,
    });
    // Read inside the attempt: the timeout covers the body, and a body cut off is retried.
    text = await res.text();
  } catch (err) {
    return noAnswer(err);
  }
  if (!res.ok)
    throw new AttemptFailure(
      `HTTP ${res.status}`,
      isRetryableStatus(res.status),
      res.status,
      res.headers.get("retry-after"),
      reasonOf(text),
    );
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new EmbeddingRequestError(
      describeFailure(opts.engine, opts.model, `answered HTTP ${res.status} with a body that is not JSON: ${short(text) || "(empty)"}`),
      true,
    );
  }
}

const MAX_REASON = 200;

/** The message an API put in its error body (OpenAI's and Cloudflare's shapes), or the text. */
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
  const candidates = [typeof err === "string" ? err : err?.message, errors.join("; "), o.detail, o.message];
  const found = candidates.find((c): c is string => typeof c === "string" && c.trim() !== "");
  return short(found ?? text);
}

export function short(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON)}…` : flat;
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}
