import type { RerankEngine, RerankEngineName } from "../../contracts/rerank/interface";
import { rerankEngineForWorker } from "../../contracts/rerank/worker-factory";
import type { RERANK_ENGINES, Settings } from "../../contracts/settings";
import type { Env } from "../env";

// The settings' engine names are the rerank engines' names and `none`: a new backend must be added to both.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
const sameNames: Same<Exclude<(typeof RERANK_ENGINES)[number], "none">, RerankEngineName> = true;
void sameNames;

/**
 * The search route's reranker, from platform settings (`catalog.rerankEngine`): `local-wink` through
 * the local engine process (EMBEDDINGS_BASE_URL, the same process that embeds queries), `tei` through
 * RERANK_BASE_URL, `workers-ai` through the AI binding. Null when set to `none`, or, with the reason,
 * when this Worker lacks what the engine needs: a search then keeps the fused order and says why.
 */
export function queryReranker(env: Env, settings: Settings): { engine: RerankEngine | null; unavailable?: string } {
  const { rerankEngine: engine, rerankModel } = settings.catalog;
  const model = rerankModel ?? undefined;
  switch (engine) {
    case "none":
      return { engine: null };
    case "workers-ai":
      if (!env.AI) return { engine: null, unavailable: "the workers-ai reranker needs the Worker's AI binding" };
      return { engine: rerankEngineForWorker({ engine, model, ai: env.AI }) };
    case "local-wink":
      if (!env.EMBEDDINGS_BASE_URL) return { engine: null, unavailable: "the local-wink reranker needs EMBEDDINGS_BASE_URL on the Worker" };
      return { engine: rerankEngineForWorker({ engine, baseUrl: env.EMBEDDINGS_BASE_URL }) };
    case "tei":
      if (!env.RERANK_BASE_URL) return { engine: null, unavailable: "the tei reranker needs RERANK_BASE_URL on the Worker" };
      return { engine: rerankEngineForWorker({ engine, model, baseUrl: env.RERANK_BASE_URL, apiKey: env.RERANK_API_KEY }) };
  }
}
