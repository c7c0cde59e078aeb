import { z } from "zod";
import { UnreadableAnswer } from "./answer";
import { NetworkTextEngine, type CompletionOptions, type NetworkTextConfig } from "./network";
import type { ChatMessage } from "./prompt";

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint: a language model on the GPU box (Ollama,
 * vLLM, llama.cpp's server), or OpenAI itself. The body is `{ model, messages, temperature: 0,
 * max_tokens, response_format: { type: "json_object" } }` (JSON mode as OpenAI, Ollama and vLLM all
 * take it; it needs the word "JSON" in the messages, which the instructions carry), answered with
 * `{ choices: [{ message: { role, content, refusal? }, finish_reason }], usage }` whose content is
 * the JSON answer answer.ts reads. The retry's conversation adds the model's first answer as an
 * `assistant` turn and the problems as a `user` turn.
 *
 * Ollama serves a model with a 2,048 or 4,096-token context unless told otherwise, cutting longer
 * prompts from the front (the instructions first): give it `num_ctx` 8192 or more for the prompt's
 * budgets (prompt.ts).
 *
 * An empty message (a server that stopped at once, or at `length` before any text) counts as an
 * unusable answer and is asked again; a refusal or an answer without choices fails at once.
 */
export interface OpenAICompatibleTextConfig extends NetworkTextConfig {
  baseUrl: string;
  apiKey?: string;
}

/** Llama 3.1 8B Instruct under Ollama's name (the GPU box's default server); vLLM serves it as meta-llama/Llama-3.1-8B-Instruct. */
export const OPENAI_COMPATIBLE_TEXT_DEFAULT_MODEL = "llama3.1:8b";

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

export class OpenAICompatibleTextEngine extends NetworkTextEngine<OpenAICompatibleTextConfig> {
  readonly name = "openai-compatible";
  private readonly http = this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {});

  protected async complete(messages: readonly ChatMessage[], opts: CompletionOptions): Promise<unknown> {
    const body = await this.http.json("/v1/chat/completions", {
      method: "POST",
      body: {
        model: this.model,
        messages,
        temperature: 0,
        max_tokens: opts.maxTokens,
        response_format: { type: "json_object" },
      },
      signal: opts.signal,
    });
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) throw this.http.failure(`answered without a chat completion: ${parsed.error.issues[0]?.message ?? ""}`);
    const choice = parsed.data.choices[0]!;
    if (choice.message.refusal) throw this.http.failure(`refused to answer: ${choice.message.refusal}`);
    const content = choice.message.content ?? "";
    if (content.trim() === "")
      return new UnreadableAnswer(`an empty message${choice.finish_reason ? `, finish_reason ${choice.finish_reason}` : ""}`);
    return content;
  }
}
