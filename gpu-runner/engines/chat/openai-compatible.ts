import { z } from "zod";
import type { EngineHttpClient } from "../http";
import { type ChatMessage, type ChatOptions } from "./interface";
import { UnreadableAnswer } from "./unreadable-answer";

/**
 * An OpenAI-compatible `/v1/chat/completions` endpoint: a language model on the GPU box (Ollama,
 * vLLM, llama.cpp's server), or OpenAI itself. The body is `{ model, messages, temperature: 0,
 * max_tokens, response_format: { type: "json_object" } }` (JSON mode as OpenAI, Ollama and vLLM all
 * take it; it needs the word "JSON" in the messages, which OpenAI otherwise rejects, so every
 * capability's instructions carry it), answered with `{ choices: [{ message: { role, content,
 * refusal? }, finish_reason }], usage }` whose content is the model's JSON answer.
 *
 * An empty message (a server that stopped at once, or at `length` before any text) is an
 * UnreadableAnswer, for the capability to judge; a refusal or an answer without choices fails at once.
 */
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

export class OpenAICompatibleChat {
  /** `http` reaches the endpoint (base URL, API key) and names the model asked. */
  constructor(private readonly http: EngineHttpClient) {}

  async complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<string | UnreadableAnswer> {
    const body = await this.http.json("/v1/chat/completions", {
      method: "POST",
      body: {
        model: this.http.model,
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
    return content.trim() === "" ? new UnreadableAnswer("an empty message", choice.finish_reason) : content;
  }
}
