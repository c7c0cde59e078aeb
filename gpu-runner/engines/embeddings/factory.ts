import { EMBEDDING_ENGINE_NAMES, type EmbeddingEngine, type EmbeddingEngineName } from "../../../contracts/embeddings/interface";
import {
  OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL,
  OpenAICompatibleEmbeddingEngine,
} from "../../../contracts/embeddings/openai-compatible";
import { workersAiEmbeddingModel, workersAiRest } from "../../../contracts/embeddings/workers-ai";
import { StepFailure } from "../../../contracts/step-failure";
import { EngineConfig, type EngineEnv } from "../config";
import { LocalWinkEmbeddingEngine } from "./local-wink";

export interface EmbeddingEngineFactoryOptions {
  /** Upper bound for one HTTP call; the handler may pass something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The backend's model id (hosted backends; OPENAI_COMPAT_EMBEDDING_MODEL wins for openai-compatible). */
  model?: string;
}

/**
 * Chooses the runner's embedding engine by name (default `local-wink`) and model (`opts.model`);
 * endpoints and secrets come from the runner's environment. The Worker's search route builds its
 * engine with contracts/embeddings/worker-factory.ts: the two must be given the same engine and
 * model, or the catalog's vectors and the queries' will not be comparable (`sameSpace`).
 *
 * Environment variables
 *   local-wink           none (the vectors load once per process, on first use)
 *   openai-compatible    OPENAI_COMPAT_BASE_URL (required), OPENAI_COMPAT_API_KEY (optional),
 *                        OPENAI_COMPAT_EMBEDDING_MODEL (default: opts.model or text-embedding-3-small),
 *                        OPENAI_COMPAT_EMBEDDING_DIMENSIONS (default: known models, else the first answer)
 *   workers-ai           CLOUDFLARE_ACCOUNT_ID, CLOUDFLARE_API_TOKEN (required), WORKERS_AI_BASE_URL;
 *                        model: opts.model or @cf/baai/bge-base-en-v1.5 (bge-small and bge-large too)
 *   all network engines  EMBEDDING_HTTP_TIMEOUT_MS (per attempt; default and upper bound:
 *                        opts.requestTimeoutMs, else 45000), EMBEDDING_HTTP_ATTEMPTS (4),
 *                        EMBEDDING_HTTP_BACKOFF_MS (1000), EMBEDDING_HTTP_MAX_BACKOFF_MS (20000)
 */
export function createEmbeddingEngine(
  name: EmbeddingEngineName | string | undefined,
  env: EngineEnv = {},
  opts: EmbeddingEngineFactoryOptions = {},
): EmbeddingEngine {
  const cfg = new EngineConfig(env, "embedding");
  switch (name ?? "local-wink") {
    case "local-wink":
      return new LocalWinkEmbeddingEngine();
    case "openai-compatible": {
      const dimensions = cfg.positiveInt("OPENAI_COMPAT_EMBEDDING_DIMENSIONS", 0);
      return new OpenAICompatibleEmbeddingEngine({
        ...cfg.openAICompatible(),
        model: cfg.optional("OPENAI_COMPAT_EMBEDDING_MODEL") ?? opts.model ?? OPENAI_COMPATIBLE_EMBEDDING_DEFAULT_MODEL,
        ...(dimensions > 0 ? { dimensions } : {}),
        ...cfg.retryPolicy("EMBEDDING", opts.requestTimeoutMs),
      });
    }
    case "workers-ai":
      return workersAiRest({
        ...cfg.workersAI(),
        model: workersAiEmbeddingModel(opts.model),
        ...cfg.retryPolicy("EMBEDDING", opts.requestTimeoutMs),
      });
    default:
      // Retryable like any unavailable engine: a newer runner may know the name.
      throw new StepFailure(
        "engine_unavailable",
        `embedding engine ${name} is not known on this runner (known: ${EMBEDDING_ENGINE_NAMES.join(", ")})`,
        true,
      );
  }
}
