import { describeFailure, short, EngineRequestError } from "../engine-http";
import { workersAiRunPath } from "../model-refs";
import { untilAborted, withRetry } from "../retry";
import { StepFailure } from "../step-failure";
import { DEFAULT_EMBEDDING_HTTP, postJson, type EmbeddingHttpPolicy } from "./http";
import { MAX_BATCH, type EmbeddingEngine } from "./interface";
import { embedInBatches } from "./batches";
import { normalize } from "./vectors";

/**
 * Cloudflare Workers AI's BAAI general embedding models, through the Worker's AI binding or the REST
 * API. Both take the same input and give the same output; only the call differs, so the engine takes
 * a `run(model, input)` function and `workersAiBinding` / `workersAiRest` make one.
 *
 * Formats, from Cloudflare's model schema (cloudflare-docs src/content/workers-ai-models/
 * bge-base-en-v1.5.json, the same for bge-small and bge-large; also workers-types'
 * `Ai_Cf_Baai_Bge_Base_En_V1_5_Input`/`_Output`) and the REST API reference:
 *   input   { text: string | string[] (each minLength 1, maxItems 100), pooling?: "mean" | "cls" }
 *   output  { shape: [n, dims], data: number[][], pooling }
 *   binding env.AI.run("@cf/baai/bge-base-en-v1.5", { text: [...] })  → output
 *   REST    POST {base}/accounts/{account_id}/ai/run/@cf/baai/bge-base-en-v1.5, bearer API token,
 *           JSON input → { result: output, success: true, errors: [], messages: [] }
 * Dimensions: bge-small 384, bge-base 768, bge-large 1024; at most 512 input tokens per text.
 *
 * Pooling is sent as `mean` always. It is the schema's default, and `cls` vectors "are not
 * compatible with embeddings generated with mean pooling": pinning it keeps stored vectors
 * comparable should the default change (switching to cls would need a new model identity).
 *
 * Binding failures are thrown errors whose message carries Workers AI's internal code (the errors
 * page: 3040 out of capacity, 3007 timeout, 5007 no such model, …): capacity, timeouts and errors
 * without a known code are retried, known request errors are not.
 */
export const WORKERS_AI_EMBEDDING_DIMENSIONS = {
  "@cf/baai/bge-small-en-v1.5": 384,
  "@cf/baai/bge-base-en-v1.5": 768,
  "@cf/baai/bge-large-en-v1.5": 1024,
} as const satisfies Record<string, number>;

export type WorkersAiEmbeddingModel = keyof typeof WORKERS_AI_EMBEDDING_DIMENSIONS;

export const WORKERS_AI_EMBEDDING_DEFAULT_MODEL: WorkersAiEmbeddingModel = "@cf/baai/bge-base-en-v1.5";
export const WORKERS_AI_DEFAULT_REST_BASE_URL = "https://api.cloudflare.com/client/v4";

export interface WorkersAiEmbeddingInput {
  text: string[];
  pooling: "mean";
}

/** One model call, resolving with the model's output; failures are StepFailures naming engine and model. */
export type WorkersAiRun = (model: string, input: WorkersAiEmbeddingInput, signal: AbortSignal | undefined) => Promise<unknown>;

/** The part of the Worker's `Ai` binding used here (`env.AI` satisfies it). */
export interface AiBinding {
  run(model: string, input: unknown): Promise<unknown>;
}

const ENGINE = "workers-ai";

export class WorkersAiEmbeddingEngine implements EmbeddingEngine {
  readonly engine = ENGINE;
  readonly model: WorkersAiEmbeddingModel;
  readonly dimensions: number;

  constructor(private readonly opts: { run: WorkersAiRun; model?: string; maxBatch?: number }) {
    this.model = workersAiEmbeddingModel(opts.model);
    this.dimensions = WORKERS_AI_EMBEDDING_DIMENSIONS[this.model];
  }

  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const maxBatch = Math.min(this.opts.maxBatch ?? MAX_BATCH["workers-ai"], MAX_BATCH["workers-ai"]);
    return embedInBatches(texts, maxBatch, (batch, s) => this.request(batch, s), {
      signal,
      dimensionsAfter: () => this.dimensions,
      describe: `${this.engine} (${this.model})`,
    });
  }

  private async request(text: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const output = await this.opts.run(this.model, { text, pooling: "mean" }, signal);
    const fail = (message: string, retryable = true) =>
      new EngineRequestError(describeFailure(this.engine, this.model, message), retryable);
    const { data, shape } = (output ?? {}) as { data?: unknown; shape?: unknown };
    if (!Array.isArray(data)) throw fail(`answered without embeddings: ${short(JSON.stringify(output) ?? "undefined")}`);
    if (data.length !== text.length) throw fail(`answered ${data.length} embeddings for ${text.length} texts`);
    if (Array.isArray(shape) && (shape[0] !== data.length || shape[1] !== this.dimensions))
      throw fail(`answered shape ${JSON.stringify(shape)} for ${text.length} texts of ${this.dimensions} dimensions`);
    return data.map((v: unknown, i) => {
      if (!Array.isArray(v) || !v.every((x) => typeof x === "number" && Number.isFinite(x)))
        throw fail(`answered embedding ${i} that is not a list of numbers`);
      if (v.length !== this.dimensions)
        throw fail(`answered a ${v.length}-dimensional embedding where ${this.dimensions} dimensions were expected`, false);
      return normalize(v as number[]);
    });
  }
}

/** The model id, checked: one of the bge models above (default bge-base). */
export function workersAiEmbeddingModel(model: string | undefined): WorkersAiEmbeddingModel {
  const m = model ?? WORKERS_AI_EMBEDDING_DEFAULT_MODEL;
  if (!(m in WORKERS_AI_EMBEDDING_DIMENSIONS))
    throw new StepFailure(
      "engine_unavailable",
      `${ENGINE}: ${m} is not an embedding model this service knows (known: ${Object.keys(WORKERS_AI_EMBEDDING_DIMENSIONS).join(", ")})`,
      false,
    );
  return m as WorkersAiEmbeddingModel;
}

export interface WorkersAiBindingOptions {
  model?: string;
  /** Total attempts per batch (default 3), and the backoff between them. */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Longest wait for one call (default 30 s); the binding cannot cancel it, only stop waiting. */
  timeoutMs?: number;
}

/** Workers AI through the Worker's AI binding (`env.AI`). */
export function workersAiBinding(ai: AiBinding, opts: WorkersAiBindingOptions = {}): WorkersAiEmbeddingEngine {
  return new WorkersAiEmbeddingEngine({ run: workersAiBindingRun(ai, opts), model: opts.model });
}

/**
 * One model call through the AI binding, whatever the model's input: a timeout per attempt (the
 * binding cannot cancel a call, only stop waiting), transient failures retried with backoff, and a
 * final failure naming the engine and model. Shared by every Workers AI client of the Worker.
 */
export function workersAiBindingRun(
  ai: AiBinding,
  opts: Omit<WorkersAiBindingOptions, "model"> = {},
): (model: string, input: unknown, signal: AbortSignal | undefined) => Promise<unknown> {
  const attempts = Math.max(1, opts.attempts ?? 3);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_EMBEDDING_HTTP.timeoutMs;
  return async (model, input, signal) => {
    let made = 0;
    try {
      return await withRetry(
        async () => {
          made += 1;
          const timeout = AbortSignal.timeout(timeoutMs);
          try {
            return await untilAborted(ai.run(model, input), signal ? AbortSignal.any([signal, timeout]) : timeout);
          } catch (err) {
            if (timeout.aborted && !signal?.aborted) throw new NoAnswer(`no answer within ${timeoutMs} ms`);
            throw err;
          }
        },
        {
          retries: attempts - 1,
          baseMs: opts.baseDelayMs ?? 500,
          maxMs: opts.maxDelayMs ?? 5_000,
          signal,
          shouldRetry: (err) => bindingErrorIsTransient(err),
        },
      );
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const message = err instanceof Error ? err.message : String(err);
      const transient = bindingErrorIsTransient(err);
      const what = transient ? `failed after ${made} attempt${made === 1 ? "" : "s"}` : "rejected the request";
      throw new EngineRequestError(describeFailure(ENGINE, model, `${what}: ${short(message)}`), transient);
    }
  };
}

export interface WorkersAiRestOptions extends Partial<EmbeddingHttpPolicy> {
  /** Default https://api.cloudflare.com/client/v4. */
  baseUrl?: string;
  accountId: string;
  apiToken: string;
  model?: string;
  fetch?: typeof fetch;
}

/** Workers AI through its REST API. */
export function workersAiRest(opts: WorkersAiRestOptions): WorkersAiEmbeddingEngine {
  const base = (opts.baseUrl ?? WORKERS_AI_DEFAULT_REST_BASE_URL).replace(/\/+$/, "");
  const policy: EmbeddingHttpPolicy = {
    attempts: opts.attempts ?? DEFAULT_EMBEDDING_HTTP.attempts,
    baseDelayMs: opts.baseDelayMs ?? DEFAULT_EMBEDDING_HTTP.baseDelayMs,
    maxDelayMs: opts.maxDelayMs ?? DEFAULT_EMBEDDING_HTTP.maxDelayMs,
    timeoutMs: opts.timeoutMs ?? DEFAULT_EMBEDDING_HTTP.timeoutMs,
  };
  const run: WorkersAiRun = async (model, input, signal) => {
    const body = await postJson({
      engine: ENGINE,
      model,
      url: `${base}${workersAiRunPath(opts.accountId, model)}`,
      body: input,
      headers: { authorization: `Bearer ${opts.apiToken}` },
      policy,
      fetch: opts.fetch,
      signal,
    });
    const envelope = (body ?? {}) as { result?: unknown; success?: unknown; errors?: unknown };
    if (envelope.success === false || envelope.result === undefined || envelope.result === null) {
      const errors = Array.isArray(envelope.errors) ? envelope.errors.map((e: { message?: unknown }) => e?.message).filter(Boolean) : [];
      throw new EngineRequestError(describeFailure(ENGINE, model, `answered without a result: ${errors.join("; ") || "no result"}`), true);
    }
    return envelope.result;
  };
  return new WorkersAiEmbeddingEngine({ run, model: opts.model });
}

/**
 * Workers AI's internal error codes (developers.cloudflare.com/workers-ai/platform/errors) that say
 * the request itself is wrong or cannot be served today: retrying them changes nothing.
 */
const REQUEST_ERROR_CODES = new Set([5007, 5004, 3039, 3003, 5018, 5016, 3023, 3041, 5019, 5005, 3042, 3006, 3036]);

class NoAnswer extends Error {}

function bindingErrorIsTransient(err: unknown): boolean {
  if (err instanceof NoAnswer) return true;
  const message = err instanceof Error ? err.message : String(err);
  const code = /\b([35]\d{3})\b/.exec(message)?.[1];
  if (code !== undefined) return !REQUEST_ERROR_CODES.has(Number(code));
  // Schema refusals without a code ("Length of '/contexts/0/text' must be >= 1", "... is required") will not pass on a retry either.
  return !/bad input|invalid|validation|no such model|must be|is required/i.test(message);
}
