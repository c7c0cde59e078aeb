import type { ChatMessage, ChatOptions } from "../chat/interface";
import { WorkersAIChat } from "../chat/workers-ai";
import type { RetryPolicy } from "../http";
import { NetworkCategoryEngine } from "./network";

/**
 * Cloudflare Workers AI over its REST API (engines/chat/workers-ai.ts), without JSON mode:
 * `{ messages, max_tokens, temperature: 0 }` to `@cf/meta/llama-3.1-8b-instruct` by default, whose
 * `response` is the model's text, which carries the JSON answer prompt.ts reads. Should JSON mode
 * be asked for some day, `response` comes back as an object, which is read the same way.
 */
export interface WorkersAICategoryConfig {
  baseUrl: string;
  accountId: string;
  apiToken: string;
  model: string;
  retry: RetryPolicy;
}

export const WORKERS_AI_CATEGORY_DEFAULT_MODEL = "@cf/meta/llama-3.1-8b-instruct";

export class WorkersAICategoryEngine extends NetworkCategoryEngine<WorkersAICategoryConfig> {
  readonly engine = "workers-ai";
  private readonly chat = new WorkersAIChat(
    this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` }),
    this.config.accountId,
  );

  protected complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown> {
    return this.chat.complete(messages, opts);
  }
}
