import { StepFailure } from "../../handler";

/**
 * HTTP calls of network speech engines. Each attempt has its own timeout (shorter than the lease,
 * so a hung server can never outlive the task's lease); 429 and 5xx answers and network errors are
 * retried with exponential backoff and jitter, honouring Retry-After. Other 4xx answers are the
 * request's fault (bad key, unsupported file) and fail at once, not retryable.
 */
export interface RetryPolicy {
  /** Total attempts including the first. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  timeoutMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, timeoutMs: 45_000 };

export function retryPolicyFromEnv(env: Readonly<Record<string, string | undefined>>, timeoutMs?: number): RetryPolicy {
  const num = (v: string | undefined, d: number) => (v !== undefined && v !== "" && Number.isFinite(Number(v)) ? Number(v) : d);
  return {
    attempts: Math.max(1, num(env.SPEECH_HTTP_ATTEMPTS, DEFAULT_RETRY.attempts)),
    baseDelayMs: num(env.SPEECH_HTTP_BACKOFF_MS, DEFAULT_RETRY.baseDelayMs),
    maxDelayMs: num(env.SPEECH_HTTP_MAX_BACKOFF_MS, DEFAULT_RETRY.maxDelayMs),
    timeoutMs: num(env.SPEECH_HTTP_TIMEOUT_MS, timeoutMs ?? DEFAULT_RETRY.timeoutMs),
  };
}

export function isRetryableStatus(status: number): boolean {
  return status === 429 || status === 408 || status >= 500;
}

export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfter?: string | null): number {
  const fromHeader = parseRetryAfter(retryAfter);
  if (fromHeader !== null) return Math.min(fromHeader, policy.maxDelayMs);
  const exp = policy.baseDelayMs * 2 ** (attempt - 1);
  return Math.min(policy.maxDelayMs, exp / 2 + Math.random() * (exp / 2));
}

function parseRetryAfter(v: string | null | undefined): number | null {
  if (!v) return null;
  const secs = Number(v);
  if (Number.isFinite(secs)) return Math.max(0, secs * 1000);
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - Date.now()) : null;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * POSTs (or whatever `makeInit` describes) with retries and returns the first successful response.
 * `makeInit` is called per attempt because request bodies (streams, FormData) are single-use.
 */
export async function fetchWithRetry(
  engine: string,
  url: string,
  makeInit: () => Promise<RequestInit> | RequestInit,
  policy: RetryPolicy,
  signal: AbortSignal,
): Promise<Response> {
  let lastError = "";
  for (let attempt = 1; attempt <= policy.attempts; attempt++) {
    signal.throwIfAborted();
    const attemptSignal = AbortSignal.any([signal, AbortSignal.timeout(policy.timeoutMs)]);
    let retryAfter: string | null = null;
    try {
      const res = await fetch(url, { ...(await makeInit()), signal: attemptSignal });
      if (res.ok) return res;
      const body = (await res.text().catch(() => "")).slice(0, 300);
      lastError = `HTTP ${res.status}${body ? `: ${body}` : ""}`;
      if (!isRetryableStatus(res.status)) {
        throw new StepFailure("processing_failed", `speech engine ${engine} rejected the request: ${lastError}`, false);
      }
      retryAfter = res.headers.get("retry-after");
    } catch (err) {
      if (err instanceof StepFailure) throw err;
      if (signal.aborted) throw signal.reason;
      lastError = (err as Error).name === "TimeoutError" ? `no answer within ${policy.timeoutMs} ms` : (err as Error).message;
    }
    if (attempt < policy.attempts) await sleep(backoffDelay(attempt, policy, retryAfter), signal);
  }
  throw new StepFailure("processing_failed", `speech engine ${engine} failed after ${policy.attempts} attempts: ${lastError}`, true);
}
