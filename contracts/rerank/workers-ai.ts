import { describeFailure, EngineRequestError } from "../engine-http";
import { workersAiBindingRun, type AiBinding, type WorkersAiBindingOptions } from "../embeddings/workers-ai";
import { StepFailure } from "../step-failure";
import { RERANK_MAX_TEXTS, type RerankEngine } from "./interface";
import { rerankInBatches, scoresByIndex } from "./batches";

/**
 * Cloudflare Workers AI's cross-encoder reranker through the Worker's AI binding. Format, from
 * Cloudflare's model schema (cloudflare-docs src/content/workers-ai-models/bge-reranker-base.json;
 * workers-types' `Ai_Cf_Baai_Bge_Reranker_Base_Input`/`_Output`, whose input type lost `query`):
 *
 *   input   { query: string, contexts: [{ text }], top_k?: number }
 *   output  { response: [{ id, score }] }   (id = the context's index; score in [0, 1])
 *
 * `top_k` is sent as the number of contexts so every text gets its score. The schema refuses an
 * empty context (`text` minLength 1), which would fail the whole call: blank texts are not sent and
 * score BLANK_SCORE, the bottom of the model's scale (a search's candidate whose text is missing
 * reaches the reranker as "").
 */
export const WORKERS_AI_RERANK_MODELS = ["@cf/baai/bge-reranker-base"] as const;
export const WORKERS_AI_RERANK_DEFAULT_MODEL = WORKERS_AI_RERANK_MODELS[0];

const ENGINE = "workers-ai";

/** A blank text's score: the model's scores are sigmoids, in [0, 1]. */
const BLANK_SCORE = 0;

export class WorkersAiRerankEngine implements RerankEngine {
  readonly engine = ENGINE;
  readonly model: string;
  private readonly run: ReturnType<typeof workersAiBindingRun>;

  constructor(ai: AiBinding, opts: WorkersAiBindingOptions = {}) {
    this.model = opts.model ?? WORKERS_AI_RERANK_DEFAULT_MODEL;
    if (!(WORKERS_AI_RERANK_MODELS as readonly string[]).includes(this.model))
      throw new StepFailure(
        "engine_unavailable",
        `${ENGINE}: ${this.model} is not a reranking model this service knows (known: ${WORKERS_AI_RERANK_MODELS.join(", ")})`,
        false,
      );
    this.run = workersAiBindingRun(ai, opts);
  }

  rerank(query: string, texts: readonly string[], signal?: AbortSignal): Promise<number[]> {
    return rerankInBatches(texts, RERANK_MAX_TEXTS, (batch, s) => this.request(query, batch, s), signal);
  }

  private async request(query: string, texts: string[], signal: AbortSignal | undefined): Promise<number[]> {
    const sent = texts.flatMap((text, i) => (text.trim() === "" ? [] : [i]));
    const scores = new Array<number>(texts.length).fill(BLANK_SCORE);
    if (sent.length === 0) return scores;
    const contexts = sent.map((i) => ({ text: texts[i]! }));
    const output = await this.run(this.model, { query, contexts, top_k: contexts.length }, signal);
    const { response } = (output ?? {}) as { response?: unknown };
    const answered = scoresByIndex(
      response,
      contexts.length,
      "id",
      "score",
      (m) => new EngineRequestError(describeFailure(this.engine, this.model, m), true),
    );
    sent.forEach((i, k) => (scores[i] = answered[k]!));
    return scores;
  }
}
