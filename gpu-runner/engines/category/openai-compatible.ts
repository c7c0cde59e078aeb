import type { ChatMessage, ChatOptions } from "../chat/interface";
import { OpenAICompatibleChat } from "../chat/openai-compatible";
import type { RetryPolicy } from "../http";
import { NetworkCategoryEngine } from "./network";

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint (engines/chat/openai-compatible.ts: the
 * request in JSON mode, refusals): a language model on the GPU box (vLLM, llama.cpp's server,
 * Ollama), or OpenAI itself. The content is the JSON answer prompt.ts reads; an empty message fails.
 */
export interface OpenAICompatibleCategoryConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  retry: RetryPolicy;
}

export const OPENAI_COMPATIBLE_CATEGORY_DEFAULT_MODEL = "gpt-4o-mini";

export class OpenAICompatibleCategoryEngine extends NetworkCategoryEngine<OpenAICompatibleCategoryConfig> {
  readonly engine = "openai-compatible";
  private readonly chat = new OpenAICompatibleChat(
    this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
  );

  protected complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown> {
    return this.chat.complete(messages, opts);
  }
}
