/**
 * Text embeddings, shared by the indexer (gpu-runner) and the catalog search route (Worker), so a
 * query and the documents it is compared with are always embedded by the same engine and model.
 * Web-platform code only: this folder compiles for workerd and for Node.
 *
 * Backends: `local-wink` (mean-pooled word vectors, in the runner's process or, for the Worker,
 * through the local engine process's OpenAI-compatible endpoint), `workers-ai` (BAAI bge models,
 * through the AI binding or the REST API) and `openai-compatible` (`POST /v1/embeddings`: OpenAI,
 * TEI, vLLM, Ollama).
 *
 * Rules every engine keeps:
 * - one vector per text, in the order given, each of `dimensions` float32 components and unit length,
 *   so cosine similarity is a dot product;
 * - a text with nothing to embed (blank, or no word the model knows) gives the zero vector, and blank
 *   texts are never sent to a backend (OpenAI and Workers AI reject empty strings). The zero vector's
 *   cosine with anything, itself included, is 0: it never outranks a real match, and a store may skip
 *   it altogether;
 * - failures name the engine and model (`workers-ai (@cf/baai/bge-base-en-v1.5): HTTP 503 …`), and an
 *   aborted signal rejects with the signal's reason.
 */
export interface EmbeddingEngine {
  readonly engine: string;
  readonly model: string;
  /** Components per vector. An OpenAI-compatible server of an unlisted model reports 0 until its first answer. */
  readonly dimensions: number;
  /** One unit-length vector per text, same order. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]>;
}

export type EmbeddingEngineName = "local-wink" | "workers-ai" | "openai-compatible";
export const EMBEDDING_ENGINE_NAMES: readonly EmbeddingEngineName[] = ["local-wink", "workers-ai", "openai-compatible"];

/**
 * Texts per request (or, in-process, per slice between yields to the event loop), per backend:
 * - `workers-ai`: 100, the bge models' `text` array `maxItems` (Cloudflare's model schema);
 * - `openai-compatible`: 32. OpenAI takes up to 2048 inputs (and 300,000 tokens) per request, but
 *   Hugging Face TEI refuses more than its `--max-client-batch-size`, 32 by default; 32 fits every
 *   server named above. The client's `maxBatch` option raises it for a server known to take more;
 * - `local-wink`: 256 texts between yields to the event loop (about 13 ms for 100-word chunks), so a
 *   runner embedding thousands of chunks still answers its heartbeats and notices a cancel.
 */
export const MAX_BATCH: Readonly<Record<EmbeddingEngineName, number>> = {
  "local-wink": 256,
  "workers-ai": 100,
  "openai-compatible": 32,
};

/** What a stored vector was made by: recorded beside every vector, checked before comparing. */
export interface EmbeddingIdentity {
  engine: string;
  model: string;
  dimensions: number;
}
