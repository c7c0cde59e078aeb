import { StepFailure } from "../step-failure";
import type { EmbeddingHttpPolicy } from "./http";
import { EMBEDDING_ENGINE_NAMES, type EmbeddingEngine, type EmbeddingEngineName } from "./interface";
import { OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL, OpenAICompatibleEmbeddingEngine } from "./openai-compatible";
import { LOCAL_WINK_DIMENSIONS, LOCAL_WINK_ENGINE, LOCAL_WINK_MODEL } from "./local-wink";
import { workersAiBinding, type AiBinding } from "./workers-ai";

/** How the Worker reaches one of its engines (query embeddings, the search's reranker). */
export interface WorkerEngineConfig<Name extends string> {
  engine: Name;
  /** The backend's model (default: the engine's own). */
  model?: string;
  /** The local engine process (`http://127.0.0.1:8790`), or the GPU box's server. */
  baseUrl?: string;
  apiKey?: string;
  /** workers-ai: the Worker's AI binding (`env.AI`). */
  ai?: AiBinding;
  /** For tests; default the global fetch. */
  fetch?: typeof fetch;
  /** HTTP policy overrides (defaults: the engine's WORKER_*_HTTP). */
  http?: Partial<EmbeddingHttpPolicy>;
}

/** Models by default: the local model, bge-base for workers-ai, text-embedding-3-small; openai-compatible's baseUrl is without `/v1`. */
export type WorkerEmbeddingConfig = WorkerEngineConfig<EmbeddingEngineName>;

/**
 * A search request waits for its query's vector: fewer and shorter attempts than the indexer's
 * (2 attempts of at most 10 s, 200 ms then up to 1 s apart).
 */
export const WORKER_EMBEDDING_HTTP: EmbeddingHttpPolicy = { attempts: 2, baseDelayMs: 200, maxDelayMs: 1_000, timeoutMs: 10_000 };

/**
 * The embedding engine of the Worker's search route, to embed queries in the space the indexer
 * embedded the catalog in:
 *   local-wink         the OpenAI-compatible client pointed at the local engine process
 *                      (scripts/local-engines/embeddings-server.ts), reporting engine `local-wink` and
 *                      model LOCAL_WINK_MODEL, exactly as the runner's in-process engine does; an
 *                      answer from another model is refused
 *   workers-ai         the AI binding, bge-base unless `model` says otherwise
 *   openai-compatible  the client of `baseUrl`/v1/embeddings with `apiKey`
 * A missing setting is an `engine_unavailable` failure naming it.
 */
export function embeddingEngineForWorker(config: WorkerEmbeddingConfig): EmbeddingEngine {
  const http = { ...WORKER_EMBEDDING_HTTP, ...config.http };
  const missing = (what: string) =>
    new StepFailure("engine_unavailable", `embedding engine ${config.engine} is not configured on this Worker: ${what}`, false);
  switch (config.engine) {
    case "local-wink":
      if (!config.baseUrl) throw missing("baseUrl (the local engine process) is not set");
      return new OpenAICompatibleEmbeddingEngine({
        ...http,
        baseUrl: config.baseUrl,
        model: config.model ?? LOCAL_WINK_MODEL,
        engineName: LOCAL_WINK_ENGINE,
        dimensions: LOCAL_WINK_DIMENSIONS,
        requireModel: true,
        ...(config.fetch ? { fetch: config.fetch } : {}),
      });
    case "workers-ai":
      if (!config.ai) throw missing("the AI binding is not set");
      return workersAiBinding(config.ai, { model: config.model, ...http });
    case "openai-compatible":
      if (!config.baseUrl) throw missing("baseUrl is not set");
      return new OpenAICompatibleEmbeddingEngine({
        ...http,
        baseUrl: config.baseUrl,
        model: config.model ?? OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
        ...(config.fetch ? { fetch: config.fetch } : {}),
      });
    default:
      throw new StepFailure(
        "engine_unavailable",
        `embedding engine ${String(config.engine)} is not known (known: ${EMBEDDING_ENGINE_NAMES.join(", ")})`,
        false,
      );
  }
}
