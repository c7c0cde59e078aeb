import { z } from "zod";
import { EngineRequestError } from "../http";
import { UnreadableAnswer } from "./answer";
import { NetworkTextEngine, type CompletionOptions, type NetworkTextConfig } from "./network";
import type { ChatMessage } from "./prompt";

/**
 * Cloudflare Workers AI over its REST API: `POST {baseUrl}/accounts/{account}/ai/run/{model}` with
 * `{ messages, max_tokens, temperature: 0, response_format: { type: "json_schema", json_schema } }`
 * (scoped prompts: Workers AI applies the model's chat template), answered with Cloudflare's
 * envelope `{ result: { response, usage }, success, errors, messages }`.
 *
 * JSON mode, as Workers AI documents it (developers.cloudflare.com/workers-ai/json-mode): the
 * `json_schema` form carries the answer's JSON Schema (answer.ts), which the model is held to, and
 * `response` then comes back already parsed, an object; a plain string `response` (a model or
 * gateway that ignored JSON mode) is read like any chat model's text. When the model cannot meet
 * the schema Workers AI answers an error, "JSON Mode couldn't be met": that is the model's answer
 * failing, so it is asked again once like any invalid answer, not a rejected request.
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

const JSON_MODE_NOT_MET = /JSON Mode couldn'?t be met/i;

const ResponseSchema = z.object({
  success: z.boolean().optional(),
  errors: z.array(z.object({ message: z.string().optional() }).loose()).optional(),
  result: z
    .object({ response: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() })
    .loose()
    .nullish(),
});

export class WorkersAITextEngine extends NetworkTextEngine<WorkersAITextConfig> {
  readonly name = "workers-ai";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });

  protected async complete(messages: readonly ChatMessage[], opts: CompletionOptions): Promise<unknown> {
    let body: unknown;
    try {
      body = await this.http.json(`/accounts/${encodeURIComponent(this.config.accountId)}/ai/run/${this.config.model}`, {
        method: "POST",
        body: {
          messages,
          max_tokens: opts.maxTokens,
          temperature: 0,
          response_format: { type: "json_schema", json_schema: opts.jsonSchema },
        },
        signal: opts.signal,
      });
    } catch (err) {
      if (err instanceof EngineRequestError && JSON_MODE_NOT_MET.test(err.message))
        return new UnreadableAnswer("JSON Mode couldn't be met");
      throw err;
    }
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success || !parsed.data.result) {
      const reason = parsed.success
        ? parsed.data.errors?.map((e) => e.message).join("; ") || "no result"
        : (parsed.error.issues[0]?.message ?? "");
      throw this.http.failure(`answered without a response: ${reason}`);
    }
    const said = parsed.data.result.response;
    if (said === undefined || said === null || (typeof said === "string" && said.trim() === ""))
      return new UnreadableAnswer("an empty response");
    return said;
  }
}
