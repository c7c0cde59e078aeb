import { describeFailure, EngineRequestError } from "../engine-http";
import { DEFAULT_EMBEDDING_HTTP, postJson, type EmbeddingHttpPolicy } from "./http";
import { MAX_BATCH, type EmbeddingEngine } from "./interface";
import { embedInBatches } from "./batches";
import { normalize } from "./vectors";

/**
 * An OpenAI-compatible embeddings endpoint, as OpenAI documents it and Hugging Face TEI, vLLM and
 * Ollama serve it (and the local engine process, scripts/local-engines/embeddings-server.ts):
 *
 *   POST {baseUrl}/v1/embeddings   { model, input: string[] }   (authorization: Bearer <key>, optional)
 *   200 { object: "list", data: [{ object: "embedding", index, embedding: number[] }], model, usage }
 *
 * `input` holds at most `maxBatch` texts (MAX_BATCH); blank texts are never sent (OpenAI rejects
 * empty strings). Vectors are put back in order by `index`, whatever order `data` comes in, then
 * normalised (OpenAI's are unit length already; other servers' need not be).
 *
 * Dimensions come from `dimensions` when configured, else from the known models below, else from
 * the first answer; every later answer must match. `requireModel` makes an answer that names another
 * model a failure (for servers where the model name is the identity, like the local engine process).
 */
export interface OpenAICompatibleEmbeddingOptions extends Partial<EmbeddingHttpPolicy> {
  /** Without `/v1`: `https://api.openai.com`, `http://127.0.0.1:8080`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Reported as `engine` and named in errors. Default `openai-compatible`. */
  engineName?: string;
  fetch?: typeof fetch;
  dimensions?: number;
  maxBatch?: number;
  requireModel?: boolean;
}

export const OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL = "text-embedding-3-small";

/** Dimensions of models whose servers are asked by name often enough to know them beforehand. */
export const KNOWN_OPENAI_EMBEDDING_DIMENSIONS: Readonly<Record<string, number>> = {
  "text-embedding-3-small": 1536,
  "text-embedding-3-large": 3072,
  "text-embedding-ada-002": 1536,
  "BAAI/bge-small-en-v1.5": 384,
  "BAAI/bge-base-en-v1.5": 768,
  "BAAI/bge-large-en-v1.5": 1024,
  "nomic-embed-text": 768,
};

export class OpenAICompatibleEmbeddingEngine implements EmbeddingEngine {
  readonly engine: string;
  readonly model: string;
  private learned: number;
  private readonly url: string;
  private readonly policy: EmbeddingHttpPolicy;

  constructor(private readonly opts: OpenAICompatibleEmbeddingOptions) {
    this.engine = opts.engineName ?? "openai-compatible";
    this.model = opts.model;
    this.learned = opts.dimensions ?? KNOWN_OPENAI_EMBEDDING_DIMENSIONS[opts.model] ?? 0;
    this.url = `${opts.baseUrl.replace(/\/+$/, "")}/v1/embeddings`;
    this.policy = {
      attempts: opts.attempts ?? DEFAULT_EMBEDDING_HTTP.attempts,
      baseDelayMs: opts.baseDelayMs ?? DEFAULT_EMBEDDING_HTTP.baseDelayMs,
      maxDelayMs: opts.maxDelayMs ?? DEFAULT_EMBEDDING_HTTP.maxDelayMs,
      timeoutMs: opts.timeoutMs ?? DEFAULT_EMBEDDING_HTTP.timeoutMs,
    };
  }

  get dimensions(): number {
    return this.learned;
  }

  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    return embedInBatches(texts, this.opts.maxBatch ?? MAX_BATCH["openai-compatible"], (batch, s) => this.request(batch, s), {
      signal,
      dimensionsAfter: () => this.learned,
      describe: `${this.engine} (${this.model})`,
    });
  }

  private async request(input: string[], signal: AbortSignal | undefined): Promise<Float32Array[]> {
    const body = await postJson({
      engine: this.engine,
      model: this.model,
      url: this.url,
      body: { model: this.model, input },
      headers: this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {},
      policy: this.policy,
      fetch: this.opts.fetch,
      signal,
    });
    return this.read(body, input.length);
  }

  private read(body: unknown, count: number): Float32Array[] {
    const fail = (message: string, retryable = true) =>
      new EngineRequestError(describeFailure(this.engine, this.model, message), retryable);
    const o = (body ?? {}) as { data?: unknown; model?: unknown };
    if (!Array.isArray(o.data)) throw fail("answered without a data list of embeddings");
    if (this.opts.requireModel && o.model !== this.model) throw fail(`answered with model ${JSON.stringify(o.model)}`, false);
    if (o.data.length !== count) throw fail(`answered ${o.data.length} embeddings for ${count} texts`);
    const out = new Array<Float32Array | undefined>(count);
    for (const item of o.data as unknown[]) {
      const { index, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= count || out[index])
        throw fail(`answered an embedding with index ${JSON.stringify(index)} for ${count} texts`);
      if (!Array.isArray(embedding) || embedding.length === 0 || !embedding.every((x) => typeof x === "number" && Number.isFinite(x)))
        throw fail(`answered embedding ${index} that is not a list of numbers`);
      if (this.learned === 0) this.learned = embedding.length;
      if (embedding.length !== this.learned)
        throw fail(`answered a ${embedding.length}-dimensional embedding where ${this.learned} dimensions were expected`, false);
      out[index] = normalize(embedding as number[]);
    }
    return out as Float32Array[];
  }
}
