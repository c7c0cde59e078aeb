import { z } from "zod";
import { EngineRequestError } from "../../../contracts/engine-http";
import type { EngineHttpClient } from "../http";
import { type ChatMessage, type ChatOptions } from "./interface";
import { UnreadableAnswer } from "./unreadable-answer";
import { workersAiRunPath } from "../../../contracts/model-refs";

/**
 * Cloudflare Workers AI's text generation over its REST API: `POST
 * {baseUrl}/accounts/{account}/ai/run/{model}` with `{ messages, max_tokens, temperature: 0 }`
 * (scoped prompts: Workers AI applies the model's chat template), plus `response_format: { type:
 * "json_schema", json_schema }` when the capability gives a schema, answered with Cloudflare's
 * envelope `{ result: { response, usage }, success, errors, messages }`.
 *
 * JSON mode, as Workers AI documents it (developers.cloudflare.com/workers-ai/json-mode): the model
 * is held to the schema, and `response` then comes back already parsed, an object; a plain string
 * `response` (no schema asked, or a model or gateway that ignored JSON mode) is the model's text.
 * When the model cannot meet the schema Workers AI answers an error, "JSON Mode couldn't be met":
 * that is the model's answer failing, an UnreadableAnswer, not a rejected request. So is an empty
 * response.
 */
const JSON_MODE_NOT_MET = /JSON Mode couldn'?t be met/i;

const ResponseSchema = z.object({
  success: z.boolean().optional(),
  errors: z.array(z.object({ message: z.string().optional() }).loose()).optional(),
  result: z
    .object({ response: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish() })
    .loose()
    .nullish(),
});

export class WorkersAIChat {
  /** `http` reaches the REST API (base URL, API token) and names the model run. */
  constructor(
    private readonly http: EngineHttpClient,
    private readonly accountId: string,
  ) {}

  async complete(messages: readonly ChatMessage[], opts: ChatOptions): Promise<string | Record<string, unknown> | UnreadableAnswer> {
    let body: unknown;
    try {
      body = await this.http.json(workersAiRunPath(this.accountId, this.http.model), {
        method: "POST",
        body: {
          messages,
          max_tokens: opts.maxTokens,
          temperature: 0,
          ...(opts.jsonSchema ? { response_format: { type: "json_schema", json_schema: opts.jsonSchema } } : {}),
        },
        signal: opts.signal,
      });
    } catch (err) {
      if (opts.jsonSchema && err instanceof EngineRequestError && JSON_MODE_NOT_MET.test(err.message))
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
