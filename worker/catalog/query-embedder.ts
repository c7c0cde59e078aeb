import type { EmbeddingEngine } from "../../contracts/embeddings/interface";
import { embeddingEngineForWorker } from "../../contracts/embeddings/worker-factory";
import type { Settings } from "../../contracts/settings";
import type { Env } from "../env";

/**
 * The search route's query embedder: the engine and model platform settings name for the catalog
 * (`catalog.embeddingEngine`, the same setting the indexer's runner reads), reached from the Worker —
 * Workers AI through the AI binding, `local-wink` through the local engine process and
 * `openai-compatible` through the GPU box's server (both at EMBEDDINGS_BASE_URL). Null, with the
 * reason, when this Worker lacks what the engine needs.
 */
export function queryEmbedder(env: Env, settings: Settings): { engine: EmbeddingEngine | null; unavailable?: string } {
  const { embeddingEngine: engine, embeddingModel } = settings.catalog;
  const model = embeddingModel ?? undefined;
  if (engine === "workers-ai") {
    if (!env.AI) return { engine: null, unavailable: "workers-ai embeddings need the Worker's AI binding" };
    return { engine: embeddingEngineForWorker({ engine, model, ai: env.AI }) };
  }
  if (!env.EMBEDDINGS_BASE_URL) return { engine: null, unavailable: `${engine} embeddings need EMBEDDINGS_BASE_URL on the Worker` };
  return { engine: embeddingEngineForWorker({ engine, model, baseUrl: env.EMBEDDINGS_BASE_URL, apiKey: env.EMBEDDINGS_API_KEY }) };
}
