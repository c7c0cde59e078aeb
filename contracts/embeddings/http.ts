import { callEngine, EngineRequestError, readJson, type RetryPolicy } from "../engine-http";

/**
 * The JSON POST of the hosted embedding clients, fetch only so it runs in the Worker too, on the
 * request rules (and messages) every engine client shares (contracts/engine-http.ts): a timeout
 * per attempt, retries of 429, 408, 5xx and network errors honouring Retry-After, the caller's
 * signal abandoning the call with its reason, and errors naming engine and model with a short
 * excerpt of the answer:
 * `openai-compatible (text-embedding-3-small): HTTP 503 after 3 attempts: model is loading`.
 */
export type EmbeddingHttpPolicy = RetryPolicy;

export const DEFAULT_EMBEDDING_HTTP: EmbeddingHttpPolicy = { attempts: 4, baseDelayMs: 1000, maxDelayMs: 20_000, timeoutMs: 30_000 };

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

/** Posts `body` as JSON and resolves with the first 2xx answer's JSON. */
export async function postJson(opts: PostJsonOptions): Promise<unknown> {
  const payload = JSON.stringify(opts.body);
  const call = {
    ...opts,
    error: (message: string, retryable: boolean, status?: number) => new EngineRequestError(message, retryable, status),
  };
  return callEngine(
    opts.url,
    () => ({ method: "POST", headers: { accept: "application/json", "content-type": "application/json", ...opts.headers }, body: payload }),
    (res) => readJson(res, call),
    call,
  );
}
