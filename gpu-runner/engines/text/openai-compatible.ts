import { OpenAICompatibleChat } from "../chat/openai-compatible";
import type { ChatMessage } from "../chat/interface";
import { NetworkTextEngine, type CompletionOptions, type NetworkTextConfig } from "./network";

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint (engines/chat/openai-compatible.ts: the
 * request, JSON mode, refusals) asked for a metadata or summary draft, whose content is the JSON
 * answer answer.ts reads. The retry's conversation adds the model's first answer as an `assistant`
 * turn and the problems as a `user` turn.
 *
 * Ollama serves a model with a 2,048 or 4,096-token context unless told otherwise, cutting longer
 * prompts from the front (the instructions first): give it `num_ctx` 8192 or more for the prompt's
 * budgets (prompt.ts).
 *
 * An empty message counts as an unusable answer and is asked again; a refusal or an answer without
 * choices fails at once.
 */
export interface OpenAICompatibleTextConfig extends NetworkTextConfig {
  baseUrl: string;
  apiKey?: string;
}

/** Llama 3.1 8B Instruct under Ollama's name (the GPU box's default server); vLLM serves it as meta-llama/Llama-3.1-8B-Instruct. */
export const OPENAI_COMPATIBLE_TEXT_DEFAULT_MODEL = "llama3.1:8b";

export class OpenAICompatibleTextEngine extends NetworkTextEngine<OpenAICompatibleTextConfig> {
  readonly name = "openai-compatible";
  private readonly chat = new OpenAICompatibleChat(
    this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {}),
  );

  protected complete(messages: readonly ChatMessage[], opts: CompletionOptions): Promise<unknown> {
    return this.chat.complete(messages, opts);
  }
}
