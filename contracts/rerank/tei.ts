import { describeFailure, EngineRequestError } from "../engine-http";
import { DEFAULT_EMBEDDING_HTTP, postJson, type EmbeddingHttpPolicy } from "../embeddings/http";
import { RERANK_MAX_TEXTS, type RerankEngine } from "./interface";
import { rerankInBatches, scoresByIndex } from "./batches";

/**
 * Hugging Face text-embeddings-inference's rerank endpoint (its OpenAPI document, `POST /rerank`), as
 * TEI serves cross-encoders such as BAAI/bge-reranker-base on the GPU box and as the local engine
 * process serves the local reranker (scripts/local-engines/embeddings-server.ts):
 *
 *   POST {baseUrl}/rerank  { query, texts: string[], raw_scores: false, return_text: false, truncate: true }
 *   200 [{ index, score }]   (sorted by score, best first; put back in the texts' order here)
 *
 * TEI takes no model name (a server serves one model): `model` is what this deployment records.
 */
export interface TeiRerankOptions extends Partial<EmbeddingHttpPolicy> {
  /** The server's root, without `/rerank`. */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Reported as `engine` and named in errors. Default `tei`. */
  engineName?: string;
  fetch?: typeof fetch;
}

export class TeiRerankEngine implements RerankEngine {
  readonly engine: string;
  readonly model: string;
  private readonly url: string;
  private readonly policy: EmbeddingHttpPolicy;

  constructor(private readonly opts: TeiRerankOptions) {
    this.engine = opts.engineName ?? "tei";
    this.model = opts.model;
    this.url = `${opts.baseUrl.replace(/\/+$/, "")}/rerank`;
    this.policy = { ...DEFAULT_EMBEDDING_HTTP, ...pickPolicy(opts) };
  }

  rerank(query: string, texts: readonly string[], signal?: AbortSignal): Promise<number[]> {
    return rerankInBatches(texts, RERANK_MAX_TEXTS, (batch, s) => this.request(query, batch, s), signal);
  }

  private async request(query: string, texts: string[], signal: AbortSignal | undefined): Promise<number[]> {
    const body = await postJson({
      engine: this.engine,
      model: this.model,
      url: this.url,
      body: { query, texts, raw_scores: false, return_text: false, truncate: true },
      headers: this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {},
      policy: this.policy,
      fetch: this.opts.fetch,
      signal,
    });
    return scoresByIndex(
      body,
      texts.length,
      "index",
      "score",
      (m) => new EngineRequestError(describeFailure(this.engine, this.model, m), true),
    );
  }
}

function pickPolicy(p: Partial<EmbeddingHttpPolicy>): Partial<EmbeddingHttpPolicy> {
  const out: Partial<EmbeddingHttpPolicy> = {};
  if (p.attempts !== undefined) out.attempts = p.attempts;
  if (p.baseDelayMs !== undefined) out.baseDelayMs = p.baseDelayMs;
  if (p.maxDelayMs !== undefined) out.maxDelayMs = p.maxDelayMs;
  if (p.timeoutMs !== undefined) out.timeoutMs = p.timeoutMs;
  return out;
}
