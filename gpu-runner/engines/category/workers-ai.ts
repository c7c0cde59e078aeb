import { z } from "zod";
import type { RetryPolicy } from "../http";
import { NetworkCategoryEngine } from "./interface";
import { ANSWER_MAX_TOKENS, type ChatMessage } from "./prompt";

/**
 * Cloudflare Workers AI over its REST API:
 * `POST {baseUrl}/accounts/{account}/ai/run/@cf/meta/llama-3.1-8b-instruct` with a JSON body
 * `{ messages, max_tokens, temperature: 0 }` (scoped prompts: Workers AI applies the model's chat
 * template), answered with `{ result: { response, usage }, success, errors, messages }` where
 * `response` is the model's text, which carries the JSON answer prompt.ts reads. Should JSON mode
 * be asked for some day, `response` comes back as an object, which is read the same way.
 */
export interface WorkersAICategoryConfig {
  baseUrl: string;
  accountId: string;
  apiToken: string;
  model: string;
  retry: RetryPolicy;
}

export const WORKERS_AI_CATEGORY_DEFAULT_MODEL = "@cf/meta/llama-3.1-8b-instruct";

const ResponseSchema = z.object({
  success: z.boolean().optional(),
  errors: z.array(z.object({ message: z.string().optional() }).loose()).optional(),
  result: z
    .object({ response: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() })
    .loose()
    .nullish(),
});

export class WorkersAICategoryEngine extends NetworkCategoryEngine<WorkersAICategoryConfig> {
  readonly name = "workers-ai";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });

  protected async complete(messages: readonly ChatMessage[], signal: AbortSignal): Promise<unknown> {
    const body = await this.http.json(`/accounts/${encodeURIComponent(this.config.accountId)}/ai/run/${this.config.model}`, {
      method: "POST",
      body: { messages, max_tokens: ANSWER_MAX_TOKENS, temperature: 0 },
      signal,
    });
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success || !parsed.data.result) {
      const reason = parsed.success
        ? parsed.data.errors?.map((e) => e.message).join("; ") || "no result"
        : (parsed.error.issues[0]?.message ?? "");
      throw this.http.failure(`answered without a response: ${reason}`);
    }
    const said = parsed.data.result.response;
    if (said === undefined || said === null || (typeof said === "string" && said.trim() === ""))
      throw this.http.failure("answered an empty response");
    return said;
  }
}
