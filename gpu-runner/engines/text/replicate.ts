import { z } from "zod";
import { type ChatMessage } from "../chat/interface";
import { UnreadableAnswer } from "../chat/unreadable-answer";
import { ReplicatePredictions } from "../replicate-predictions";
import { NetworkTextEngine, type CompletionOptions, type NetworkTextConfig } from "./network";

/**
 * A Llama-class instruct model on Replicate, run through the shared predictions client
 * (engines/replicate-predictions.ts: `Prefer: wait`, polling, cancel on abandon, a new prediction
 * when one fails). The default, `meta/meta-llama-3-8b-instruct`, is an official model:
 * `POST /models/meta/meta-llama-3-8b-instruct/predictions` with `{ input: { system_prompt, prompt,
 * max_tokens, temperature: 0 } }`; Replicate applies the model's own prompt template around them.
 * Language models on Replicate stream tokens, so a finished prediction's `output` is an array of
 * strings, joined here into the answer (a single string is taken as is).
 *
 * These models take one system prompt and one prompt, not a conversation, and have no JSON mode:
 * the system message becomes `system_prompt`, and the retry's prompt is the first one followed by
 * the model's previous answer and the problems found in it, so any instruct model's template fits.
 */
export interface ReplicateTextConfig extends NetworkTextConfig {
  apiToken: string;
  baseUrl: string;
  pollIntervalMs: number;
}

export const REPLICATE_TEXT_DEFAULT_MODEL = "meta/meta-llama-3-8b-instruct";

const OutputSchema = z.union([z.array(z.string()), z.string()]);

export class ReplicateTextEngine extends NetworkTextEngine<ReplicateTextConfig> {
  readonly name = "replicate";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });
  private readonly predictions = new ReplicatePredictions(this.http, this.config);

  protected async complete(messages: readonly ChatMessage[], opts: CompletionOptions): Promise<unknown> {
    const prediction = await this.predictions.run(
      {
        ...promptInput(messages),
        max_tokens: opts.maxTokens,
        temperature: 0,
      },
      opts.signal,
    );
    const output = OutputSchema.safeParse(prediction.output);
    if (!output.success) throw this.http.failure(`prediction ${prediction.id} has no text output`);
    const text = typeof output.data === "string" ? output.data : output.data.join("");
    return text.trim() === "" ? new UnreadableAnswer(`prediction ${prediction.id} answered no text`) : text;
  }
}

/** A conversation as `{ system_prompt, prompt }`: the system turns, and the rest in order, the model's own turns labelled. */
export function promptInput(messages: readonly ChatMessage[]): { system_prompt: string; prompt: string } {
  const system = messages.filter((m) => m.role === "system").map((m) => m.content);
  const turns = messages
    .filter((m) => m.role !== "system")
    .map((m) => (m.role === "assistant" ? `Your previous answer was:\n${m.content}` : m.content));
  return { system_prompt: system.join("\n\n"), prompt: turns.join("\n\n") };
}
