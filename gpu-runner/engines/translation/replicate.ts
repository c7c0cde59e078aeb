import { z } from "zod";
import { type ChatMessage, type ChatOptions } from "../chat/interface";
import { UnreadableAnswer } from "../chat/unreadable-answer";
import { ReplicatePredictions } from "../replicate-predictions";
import { promptInput } from "../text/replicate";
import { LanguageModelTranslationEngine, type LanguageModelTranslationConfig } from "./language-model";

/**
 * A Llama-class instruct model on Replicate (language-model.ts: the prompt, the reading, the one
 * retry), run through the shared predictions client (engines/replicate-predictions.ts). The
 * default, `meta/meta-llama-3-8b-instruct`, is an official model: `POST /models/meta/
 * meta-llama-3-8b-instruct/predictions` with `{ input: { system_prompt, prompt, max_tokens,
 * temperature: 0 } }`; its finished `output` is the answer's tokens, joined here. No JSON mode:
 * the answer is read out of the text (a fence or a sentence around the object is tolerated).
 */
export interface ReplicateTranslationConfig extends LanguageModelTranslationConfig {
  apiToken: string;
  baseUrl: string;
  pollIntervalMs: number;
}

export const REPLICATE_TRANSLATION_DEFAULT_MODEL = "meta/meta-llama-3-8b-instruct";

const OutputSchema = z.union([z.array(z.string()), z.string()]);

export class ReplicateTranslationEngine extends LanguageModelTranslationEngine<ReplicateTranslationConfig> {
  readonly engine = "replicate" as const;
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });
  private readonly predictions = new ReplicatePredictions(this.http, this.config);

  protected async complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<unknown> {
    const prediction = await this.predictions.run({ ...promptInput(messages), max_tokens: opts.maxTokens, temperature: 0 }, opts.signal);
    const output = OutputSchema.safeParse(prediction.output);
    if (!output.success) throw this.http.failure(`prediction ${prediction.id} has no text output`);
    const text = typeof output.data === "string" ? output.data : output.data.join("");
    return text.trim() === "" ? new UnreadableAnswer(`prediction ${prediction.id} answered no text`) : text;
  }
}
