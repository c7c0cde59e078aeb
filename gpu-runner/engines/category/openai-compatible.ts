import { z } from "zod";
import type { RetryPolicy } from "../http";
import { NetworkCategoryEngine } from "./interface";
import { ANSWER_MAX_TOKENS, type ChatMessage } from "./prompt";

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint: a language model on the GPU box (vLLM,
 * llama.cpp's server, Ollama), or OpenAI itself. The body is `{ model, messages, temperature: 0,
 * max_tokens, response_format: { type: "json_object" } }`, answered with `{ choices: [{ message: {
 * role, content }, finish_reason }], usage }`; the content is the JSON answer prompt.ts reads.
 * JSON mode needs the word "JSON" in the messages (OpenAI rejects the request otherwise); the
 * instructions carry it.
 */
export interface OpenAICompatibleCategoryConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  retry: RetryPolicy;
}

export const OPENAI_COMPATIBLE_CATEGORY_DEFAULT_MODEL = "gpt-4o-mini";

const ResponseSchema = z.object({
  choices: z
    .array(
      z
        .object({
          message: z.object({ content: z.string().nullish(), refusal: z.string().nullish() }).loose(),
          finish_reason: z.string().nullish(),
        })
        .loose(),
    )
    .min(1),
});

export class OpenAICompatibleCategoryEngine extends NetworkCategoryEngine<OpenAICompatibleCategoryConfig> {
  readonly name = "openai-compatible";
  private readonly http = this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {});

  protected async complete(messages: readonly ChatMessage[], signal: AbortSignal): Promise<unknown> {
    const body = await this.http.json("/v1/chat/completions", {
      method: "POST",
      body: {
        model: this.model,
        messages,
        temperature: 0,
        max_tokens: ANSWER_MAX_TOKENS,
        response_format: { type: "json_object" },
      },
      signal,
    });
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) throw this.http.failure(`answered without a chat completion: ${parsed.error.issues[0]?.message ?? ""}`);
    const choice = parsed.data.choices[0]!;
    if (choice.message.refusal) throw this.http.failure(`refused to answer: ${choice.message.refusal}`);
    const content = choice.message.content ?? "";
    if (content.trim() === "")
      throw this.http.failure(`answered an empty message${choice.finish_reason ? ` (finish_reason ${choice.finish_reason})` : ""}`);
    return content;
  }
}
