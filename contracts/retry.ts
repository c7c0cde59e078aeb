/**
 * Waiting and retrying, shared by the Worker and the runner (so: web-platform APIs only, no Node
 * modules). One abortable sleep, one abortable wait for work that cannot be stopped, one delay rule
 * (capped exponential backoff with jitter that honours a server's Retry-After), and one loop that
 * applies them.
 */

/** Resolves after `ms`, or rejects with the signal's reason as soon as the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(
      () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Waits for `work`, or rejects with the signal's reason as soon as it aborts (at once if it already
 * has): for work that cannot itself be stopped (a sharp encode, a model load other callers share,
 * an AI binding call), which goes on unobserved; a failure it ends with later is ignored.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(signal.reason as unknown);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as unknown);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(err as Error);
      },
    );
  });
}

/**
 * A Retry-After header value in milliseconds from `now`: delay-seconds (`"120"`) or an HTTP-date
 * (`"Wed, 21 Oct 2026 07:28:00 GMT"`). Undefined when absent or unreadable; never negative.
 */
export function parseRetryAfter(value: string | number | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value === "") return undefined;
  const secs = Number(value);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(String(value));
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export interface RetryDelayInput {
  /** 1 for the wait before the first retry, 2 before the second, … */
  attempt: number;
  baseMs: number;
  maxMs: number;
  /** The server's Retry-After header value, if it sent one. */
  retryAfter?: string | number | null;
  /**
   * "equal" (default) waits at least half the exponential step, "full" anywhere from 0 to it
   * (spreads a herd of clients best), "none" exactly the step.
   */
  jitter?: "equal" | "full" | "none";
  /** For tests: a source of numbers in [0, 1). */
  random?: () => number;
}

/**
 * The one exponential step every backoff here uses: `base·2^(attempt−1)`, never above `max` (in
 * whatever unit base and max share). Attempt 1 waits `base`.
 */
export function exponentialStep(attempt: number, base: number, max: number): number {
  return Math.min(max, base * 2 ** Math.max(0, attempt - 1));
}

/**
 * The wait before retry number `attempt`: `baseMs·2^(attempt−1)` with jitter, never above `maxMs`.
 * A Retry-After the server sent is a lower bound (the server knows when it will have room), still
 * capped by `maxMs` so a hostile or confused header cannot park the caller past its deadline.
 */
export function retryDelayMs(input: RetryDelayInput): number {
  const random = input.random ?? Math.random;
  const step = exponentialStep(input.attempt, input.baseMs, input.maxMs);
  const jitter = input.jitter ?? "equal";
  const backoff = jitter === "none" ? step : jitter === "full" ? random() * step : step / 2 + random() * (step / 2);
  const fromServer = parseRetryAfter(input.retryAfter);
  return Math.max(0, Math.min(input.maxMs, fromServer === undefined ? backoff : Math.max(fromServer, backoff)));
}

export interface RetryOptions {
  /** Retries after the first attempt (so `retries + 1` attempts at most). */
  retries: number;
  baseMs: number;
  maxMs: number;
  jitter?: RetryDelayInput["jitter"];
  /** Aborts the attempt in flight (it is passed to `fn`) and the wait: rejects with its reason. */
  signal?: AbortSignal;
  /**
   * Ends retrying without cutting off an attempt in flight: once aborted, the next failure (or the
   * wait in progress) rejects with the last attempt's error.
   */
  stopSignal?: AbortSignal;
  /** Whether this failure is worth another attempt. Default: every failure is. */
  shouldRetry?: (err: unknown, attempt: number) => boolean;
  /** The Retry-After value a failure carries, if any. */
  retryAfter?: (err: unknown) => string | number | null | undefined;
  /** Called before each wait, e.g. to log. */
  onRetry?: (info: { err: unknown; attempt: number; delayMs: number }) => void;
}

/**
 * Calls `fn` until it resolves, a failure is not retryable, or the retries are spent; then
 * rejects with the last failure. `fn` gets the attempt number (1-based) and the abort signal.
 */
export async function withRetry<T>(fn: (attempt: number, signal: AbortSignal | undefined) => Promise<T>, opts: RetryOptions): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    opts.signal?.throwIfAborted();
    try {
      return await fn(attempt, opts.signal);
    } catch (err) {
      if (opts.signal?.aborted) throw opts.signal.reason;
      if (attempt > opts.retries || opts.stopSignal?.aborted || !(opts.shouldRetry?.(err, attempt) ?? true)) throw err;
      const delayMs = retryDelayMs({
        attempt,
        baseMs: opts.baseMs,
        maxMs: opts.maxMs,
        retryAfter: opts.retryAfter?.(err),
        jitter: opts.jitter,
      });
      opts.onRetry?.({ err, attempt, delayMs });
      await waitBeforeRetry(delayMs, opts, err);
    }
  }
}

/** Sleeps; an abort rejects with the signal's reason, a stop with the failure being retried. */
async function waitBeforeRetry(ms: number, opts: RetryOptions, lastError: unknown): Promise<void> {
  if (!opts.stopSignal) return sleep(ms, opts.signal);
  const either = new AbortController();
  const forward = () => either.abort();
  opts.signal?.addEventListener("abort", forward, { once: true });
  opts.stopSignal.addEventListener("abort", forward, { once: true });
  if (opts.signal?.aborted || opts.stopSignal.aborted) either.abort();
  try {
    await sleep(ms, either.signal);
  } catch {
    if (opts.signal?.aborted) throw opts.signal.reason;
    throw lastError;
  } finally {
    opts.signal?.removeEventListener("abort", forward);
    opts.stopSignal.removeEventListener("abort", forward);
  }
}
