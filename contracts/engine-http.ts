import { BodyTooLargeError, ERROR_BODY_BYTES, readTextAtMost, readTextWithin } from "./bounded-read";
import { isRedirectStatus } from "./redirects";
import { withRetry } from "./retry";
import { isStepFailure, StepFailure } from "./step-failure";

/**
 * The request rules of every client of a hosted engine, on either executor: the runner's engine
 * HTTP client (gpu-runner/engines/http.ts) and the hosted embedding clients the Worker runs too
 * (contracts/embeddings/http.ts). Fetch only, no Node modules.
 *
 * - Each attempt has its own timeout, reading the answer included, so a hung server can never
 *   outlive the caller's deadline.
 * - 429, 408 and 5xx answers and network errors are retried with capped exponential backoff,
 *   honouring Retry-After (contracts/retry.ts). Other 4xx answers are the request's fault (bad key,
 *   unsupported input) and fail at once, not retryable.
 * - The caller's signal aborts the attempt in flight and the wait before the next one; the call
 *   then rejects with the signal's reason, never with a StepFailure.
 * - Every error names the engine and model and carries at most a short excerpt of the answer:
 *   `openai-compatible (whisper-1): HTTP 503 after 3 attempts: model is loading`.
 * - Answers are read with a cap: an error body's first 4 KiB, a JSON answer's first
 *   `MAX_JSON_ANSWER_BYTES` (more fails the call, not retried); never a server's whole stream.
 * - A redirect (3xx, seen when the request asks `redirect: "manual"`, as fetches of engines' output
 *   files do) fails the call `redirect_refused`, never retried.
 */

/** Largest JSON answer read from an engine (a transcript, a diarization, an image as base64): far above any real one. */
export const MAX_JSON_ANSWER_BYTES = 64 * 1024 * 1024;
export interface RetryPolicy {
  /** Total attempts including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per attempt, reading the answer included. Keep it shorter than the caller's deadline (the runner's lease). */
  timeoutMs: number;
}

export interface EngineCallOptions {
  /** Engine and model, as recorded on results: both appear in every error. */
  engine: string;
  model: string;
  policy: RetryPolicy;
  /** Overrides the policy's attempts for this call (1 = no retry). */
  attempts?: number;
  /** The caller's signal: aborting it abandons the call. */
  signal?: AbortSignal;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** The error a failed call rejects with, given its whole message (`engine (model): …`) and the last HTTP status. */
  error: (message: string, retryable: boolean, status: number | undefined) => StepFailure;
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

/** `engine (model): message`. */
export function describeFailure(engine: string, model: string, message: string): string {
  return `${engine} (${model}): ${message}`;
}

/**
 * Sends `request()` (built per attempt, because streamed and FormData bodies can be sent only once)
 * with retries and hands the first 2xx answer to `read`, inside the attempt: the timeout covers
 * reading the body, and a body cut off mid-way is retried like any network error. A StepFailure
 * `read` throws (an answer that makes no sense) ends the call as it is.
 */
export async function callEngine<T>(
  url: string,
  request: () => RequestInit | Promise<RequestInit>,
  read: (res: Response) => Promise<T>,
  opts: EngineCallOptions,
): Promise<T> {
  const attempts = Math.max(1, Math.floor(opts.attempts ?? opts.policy.attempts));
  let made = 0;
  try {
    return await withRetry(
      async () => {
        made += 1;
        return await attempt(url, request, read, opts);
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
    if (!err.retryable) throw opts.error(say(`rejected with ${err.what}${tail}`), false, err.status);
    throw opts.error(say(`${err.what} after ${made} attempt${made === 1 ? "" : "s"}${tail}`), true, err.status);
  }
}

/**
 * A 2xx answer's JSON, read within MAX_JSON_ANSWER_BYTES (more fails, not retried); a body that is
 * not JSON (a proxy's login page) fails, retryably, naming engine and model.
 */
export async function readJson(
  res: Response,
  opts: Pick<EngineCallOptions, "engine" | "model" | "error">,
  maxBytes = MAX_JSON_ANSWER_BYTES,
): Promise<unknown> {
  let text: string;
  try {
    text = await readTextWithin(res, maxBytes);
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    throw opts.error(describeFailure(opts.engine, opts.model, `answered ${err.message}`), false, undefined);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    const message = `answered HTTP ${res.status} with a body that is not JSON: ${short(text) || "(empty)"}`;
    throw opts.error(describeFailure(opts.engine, opts.model, message), true, undefined);
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

async function attempt<T>(
  url: string,
  request: () => RequestInit | Promise<RequestInit>,
  read: (res: Response) => Promise<T>,
  opts: EngineCallOptions,
): Promise<T> {
  const { timeoutMs } = opts.policy;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout]) : timeout;
  const noAnswer = (err: unknown): never => {
    if (opts.signal?.aborted) throw opts.signal.reason;
    if (timeout.aborted) throw new AttemptFailure(`no answer within ${timeoutMs} ms`, true);
    throw new AttemptFailure("network error", true, undefined, null, short(describeError(err)));
  };
  // Called as a plain function: the Workers runtime refuses a fetch called as another object's method.
  const doFetch = opts.fetch ?? fetch;
  let res: Response;
  try {
    res = await doFetch(url, { ...(await request()), signal });
  } catch (err) {
    // The runner's guarded fetch refuses an address with a failure of its own: final, as it is.
    if (isStepFailure(err) && !opts.signal?.aborted) throw err;
    return noAnswer(err);
  }
  if (isRedirectStatus(res.status)) {
    await res.body?.cancel().catch(() => undefined);
    throw new StepFailure(
      "redirect_refused",
      describeFailure(opts.engine, opts.model, `answered with a redirect (HTTP ${res.status}), which is not followed`),
      false,
    );
  }
  if (!res.ok) {
    const text = await readTextAtMost(res, ERROR_BODY_BYTES);
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

const MAX_REASON = 200;

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

/** At most MAX_REASON characters of `text`, on one line. */
export function short(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_REASON ? `${flat.slice(0, MAX_REASON)}…` : flat;
}

function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = (err as Error & { cause?: unknown }).cause;
  return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
}

/** A failed call. `status` is the last HTTP status, absent when no answer came (network, timeout). */
export class EngineRequestError extends StepFailure {
  constructor(
    message: string,
    retryable: boolean,
    readonly status: number | undefined = undefined,
  ) {
    super("processing_failed", message, retryable);
    this.name = "EngineRequestError";
  }
}
