import type { ChatMessage } from "../chat/interface";
import { WorkersAIChat } from "../chat/workers-ai";
import { NetworkTextEngine, type CompletionOptions, type NetworkTextConfig } from "./network";

/**
 * Cloudflare Workers AI over its REST API (engines/chat/workers-ai.ts), in JSON mode: the request
 * carries the answer's JSON Schema (answer.ts), which the model is held to, and the response comes
 * back already parsed; a plain string response (a model or gateway that ignored JSON mode) is read
 * like any chat model's text. When the model cannot meet the schema ("JSON Mode couldn't be met"),
 * or answers nothing, that is the model's answer failing, so it is asked again once like any
 * invalid answer, not a rejected request.
 *
 * Default model: `@cf/meta/llama-3.1-8b-instruct`, the JSON-mode list's Llama 3.1 8B (the one the
 * category engine uses too). Its context is 7,968 tokens, which the prompt's budgets fit; the
 * `-fast` variant is listed with a 128K context but reported not to honour `response_format`
 * (cloudflare-docs#27786), so it is not the default.
 */
export interface WorkersAITextConfig extends NetworkTextConfig {
  baseUrl: string;
  accountId: string;
  apiToken: string;
}

export const WORKERS_AI_TEXT_DEFAULT_MODEL = "@cf/meta/llama-3.1-8b-instruct";

export class WorkersAITextEngine extends NetworkTextEngine<WorkersAITextConfig> {
  readonly name = "workers-ai";
  private readonly chat = new WorkersAIChat(
    this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` }),
    this.config.accountId,
  );

  protected complete(messages: readonly ChatMessage[], opts: CompletionOptions): Promise<unknown> {
    return this.chat.complete(messages, opts);
  }
}
