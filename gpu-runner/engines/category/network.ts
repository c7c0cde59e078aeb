import { StepFailure } from "../../../contracts/step-failure";
import type { ChatMessage, ChatOptions } from "../chat/interface";
import { EngineRequestError } from "../../../contracts/engine-http";
import { EngineHttpClient, type RetryPolicy } from "../http";
import type { CategoryEngine, CategoryRequest, CategoryResult } from "./interface";
import { ANSWER_MAX_TOKENS, categoryMessages, readCategoryAnswer } from "./prompt";

/**
 * The common shape of hosted language models asked for a category: the prompt and the reading of
 * the answer are shared (prompt.ts); each backend only sends the messages through its provider's
 * chat transport (engines/chat/) and returns what the model said: text, an object a JSON mode
 * parsed, or an UnreadableAnswer.
 */
export abstract class NetworkCategoryEngine<C extends { model: string; retry: RetryPolicy }> implements CategoryEngine {
  abstract readonly engine: string;

  constructor(protected readonly config: C) {}

  get model(): string {
    return this.config.model;
  }

  /** The shared HTTP client (engines/http.ts), naming this engine and model in its errors. */
  protected httpClient(baseUrl: string, headers: Record<string, string> = {}): EngineHttpClient {
    return new EngineHttpClient({ engine: this.engine, model: this.model, baseUrl, headers, policy: this.config.retry });
  }

  async classify(req: CategoryRequest): Promise<CategoryResult> {
    if (req.categories.length === 0)
      throw new StepFailure(
        "processing_failed",
        `${this.engine} (${this.model}): no categories to choose from (supportedCategories is empty)`,
        false,
      );
    const said = await this.complete(categoryMessages(req), { maxTokens: ANSWER_MAX_TOKENS, signal: req.signal });
    return readCategoryAnswer(said, req.categories, (m) => new EngineRequestError(`${this.engine} (${this.model}): ${m}`, true, undefined));
  }

  /** Sends the conversation; resolves with the model's answer (its text, the object JSON mode gave, or an UnreadableAnswer). */
  protected abstract complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown>;
}
