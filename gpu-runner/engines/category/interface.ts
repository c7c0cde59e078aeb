import { StepFailure } from "../../handler";
import type { ChatMessage, ChatOptions } from "../chat/interface";
import { EngineHttpClient, EngineRequestError, type RetryPolicy } from "../http";
import { ANSWER_MAX_TOKENS, categoryMessages, readCategoryAnswer } from "./prompt";

/**
 * The seam between clip generation and whatever tells what kind of video it is. The local engine
 * scores keyword lexicons and visual cues; hosted language models (an OpenAI-compatible server,
 * Workers AI) are asked for the category behind the same interface (prompt.ts). Every result names
 * the engine and model that made it.
 */
export interface VisualSummary {
  /** Mean and maximum number of faces per sampled frame; null without vision. */
  meanFaces: number | null;
  maxFaces: number | null;
  /** Scene cuts per minute. */
  cutsPerMinute: number;
  /** Share of the source with speech. */
  speechShare: number;
  /** Distinct speakers seen (face tracks with mouth movement); null without vision. */
  speakers: number | null;
}

export interface CategoryRequest {
  text: string;
  visual: VisualSummary;
  /** Only these may be answered (the policy's `supportedCategories`). */
  categories: readonly string[];
  signal: AbortSignal;
}

export interface CategoryResult {
  category: string;
  /** 0..1. */
  confidence: number;
  /** Every category's share of the evidence, for the record. */
  scores: Record<string, number>;
}

export interface CategoryEngine {
  readonly name: string;
  readonly model: string;
  classify(req: CategoryRequest): Promise<CategoryResult>;
}

export type CategoryEngineName = "local-lexicon" | "openai-compatible" | "workers-ai";
export const CATEGORY_ENGINE_NAMES: readonly CategoryEngineName[] = ["local-lexicon", "openai-compatible", "workers-ai"];

export type { EngineEnv } from "../config";

export interface CategoryEngineFactoryOptions {
  /** Upper bound for one HTTP call; the handler may pass something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The backend's model id (hosted backends; each has a default, and OPENAI_COMPAT_CATEGORY_MODEL wins for openai-compatible). */
  model?: string;
}

/**
 * The common shape of hosted language models asked for a category: the prompt and the reading of
 * the answer are shared (prompt.ts); each backend only sends the messages through its provider's
 * chat transport (engines/chat/) and returns what the model said: text, an object a JSON mode
 * parsed, or an UnreadableAnswer.
 */
export abstract class NetworkCategoryEngine<C extends { model: string; retry: RetryPolicy }> implements CategoryEngine {
  abstract readonly name: string;

  constructor(protected readonly config: C) {}

  get model(): string {
    return this.config.model;
  }

  /** The shared HTTP client (engines/http.ts), naming this engine and model in its errors. */
  protected httpClient(baseUrl: string, headers: Record<string, string> = {}): EngineHttpClient {
    return new EngineHttpClient({ engine: this.name, model: this.model, baseUrl, headers, policy: this.config.retry });
  }

  async classify(req: CategoryRequest): Promise<CategoryResult> {
    if (req.categories.length === 0)
      throw new StepFailure(
        "processing_failed",
        `${this.name} (${this.model}): no categories to choose from (supportedCategories is empty)`,
        false,
      );
    const said = await this.complete(categoryMessages(req), { maxTokens: ANSWER_MAX_TOKENS, signal: req.signal });
    return readCategoryAnswer(said, req.categories, (m) => new EngineRequestError(`${this.name} (${this.model}): ${m}`, true, undefined));
  }

  /** Sends the conversation; resolves with the model's answer (its text, the object JSON mode gave, or an UnreadableAnswer). */
  protected abstract complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown>;
}
