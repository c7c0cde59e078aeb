import type { EmbeddingHttpPolicy } from "../embeddings/http";
import type { WorkerEngineConfig } from "../embeddings/worker-factory";
import { StepFailure } from "../step-failure";
import { LOCAL_RERANK_ENGINE, LOCAL_RERANK_MODEL, RERANK_ENGINE_NAMES, type RerankEngine, type RerankEngineName } from "./interface";
import { TeiRerankEngine } from "./tei";
import { WorkersAiRerankEngine } from "./workers-ai";

/** Models by default: the local model; bge-reranker-base for workers-ai and tei. baseUrl: the local engine process, or the GPU box's TEI server. */
export type WorkerRerankConfig = WorkerEngineConfig<RerankEngineName>;

/**
 * A search waits for its reranker: one short attempt and one retry, 5 s each. A reranker that still
 * fails leaves the fused order as it is (the search says so); it never fails the search.
 */
export const WORKER_RERANK_HTTP: EmbeddingHttpPolicy = { attempts: 2, baseDelayMs: 100, maxDelayMs: 500, timeoutMs: 5_000 };

export const TEI_RERANK_DEFAULT_MODEL = "BAAI/bge-reranker-base";

/** The reranker of the Worker's search route; a missing setting is an `engine_unavailable` failure naming it. */
export function rerankEngineForWorker(config: WorkerRerankConfig): RerankEngine {
  const http = { ...WORKER_RERANK_HTTP, ...config.http };
  const missing = (what: string) =>
    new StepFailure("engine_unavailable", `rerank engine ${config.engine} is not configured on this Worker: ${what}`, false);
  const fetchOpt = config.fetch ? { fetch: config.fetch } : {};
  switch (config.engine) {
    case "local-wink":
      if (!config.baseUrl) throw missing("baseUrl (the local engine process) is not set");
      return new TeiRerankEngine({
        ...http,
        ...fetchOpt,
        baseUrl: config.baseUrl,
        model: LOCAL_RERANK_MODEL,
        engineName: LOCAL_RERANK_ENGINE,
      });
    case "tei":
      if (!config.baseUrl) throw missing("baseUrl is not set");
      return new TeiRerankEngine({
        ...http,
        ...fetchOpt,
        baseUrl: config.baseUrl,
        model: config.model ?? TEI_RERANK_DEFAULT_MODEL,
        ...(config.apiKey ? { apiKey: config.apiKey } : {}),
      });
    case "workers-ai":
      if (!config.ai) throw missing("the AI binding is not set");
      return new WorkersAiRerankEngine(config.ai, { ...http, ...(config.model ? { model: config.model } : {}) });
    default:
      throw new StepFailure(
        "engine_unavailable",
        `rerank engine ${String(config.engine)} is not known (known: ${RERANK_ENGINE_NAMES.join(", ")})`,
        false,
      );
  }
}
