import type { ChatMessage, ChatOptions } from "../chat/interface";
import { OpenAICompatibleChat } from "../chat/openai-compatible";
import { LanguageModelTranslationEngine, type LanguageModelTranslationConfig } from "./language-model";

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint on the GPU box (Ollama, vLLM, llama.cpp's
 * server) or OpenAI itself, in JSON mode (engines/chat/openai-compatible.ts), asked by
 * language-model.ts for `{ "translations": [...] }`. Ollama's default context (2,048–4,096 tokens)
 * is enough for one chunk (CHUNK_CHARS 3,000 characters in, as much out): give it `num_ctx` 8192
 * to be safe with the retry's longer conversation.
 */
export interface OpenAICompatibleTranslationConfig extends LanguageModelTranslationConfig {
  baseUrl: string;
  apiKey?: string;
}

/** Llama 3.1 8B Instruct under Ollama's name, as the text engines default to. */
export const OPENAI_COMPATIBLE_TRANSLATION_DEFAULT_MODEL = "llama3.1:8b";

export class OpenAICompatibleTranslationEngine extends LanguageModelTranslationEngine<OpenAICompatibleTranslationConfig> {
  readonly engine = "openai-compatible" as const;
  private readonly chat = new OpenAICompatibleChat(
    this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
  );

  protected complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown> {
    return this.chat.complete(messages, opts);
  }
}
