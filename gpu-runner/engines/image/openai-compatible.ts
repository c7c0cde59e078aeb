import { z } from "zod";
import type { RetryPolicy } from "../http";
import { NetworkImageEngine } from "./network";
import { type Cover, type CoverRequest } from "./interface";
import { exactJpeg } from "./jpeg";

/**
 * An OpenAI-compatible `/v1/images/generations` endpoint: OpenAI itself, or a diffusion server on
 * the GPU box (LocalAI and the like). The body is `{ model, prompt, n: 1, size: "WxH",
 * response_format: "b64_json" }`, answered with `{ created, data: [{ b64_json }] }`.
 *
 * OpenAI's own models take a few fixed sizes only, so for them the nearest size by aspect ratio is
 * asked for; other servers get the requested size. gpt-image models always answer base64 and
 * reject `response_format`, so it is sent to the others only. The answer is cropped to the exact
 * size either way.
 */
export interface OpenAICompatibleImageConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  retry: RetryPolicy;
}

export const OPENAI_COMPATIBLE_IMAGE_DEFAULT_MODEL = "dall-e-3";

const FIXED_SIZES: Record<string, readonly (readonly [number, number])[]> = {
  "dall-e-3": [
    [1024, 1024],
    [1792, 1024],
    [1024, 1792],
  ],
  "dall-e-2": [[1024, 1024]],
  "gpt-image-1": [
    [1024, 1024],
    [1536, 1024],
    [1024, 1536],
  ],
};

/** The `size` to ask for: the nearest aspect ratio among a known model's sizes, else the request's own. */
export function openAIImageSize(model: string, width: number, height: number): string {
  const sizes = FIXED_SIZES[model] ?? (model.startsWith("gpt-image-") ? FIXED_SIZES["gpt-image-1"] : undefined);
  if (!sizes) return `${width}x${height}`;
  const target = Math.log(width / height);
  const [w, h] = sizes.reduce((best, s) =>
    Math.abs(Math.log(s[0] / s[1]) - target) < Math.abs(Math.log(best[0] / best[1]) - target) ? s : best,
  );
  return `${w}x${h}`;
}

const ResponseSchema = z.object({
  data: z.array(z.object({ b64_json: z.string().min(1), revised_prompt: z.string().nullish() }).loose()).min(1),
});

export class OpenAICompatibleImageEngine extends NetworkImageEngine<OpenAICompatibleImageConfig> {
  readonly engine = "openai-compatible";
  private readonly http = this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {});

  async generate(req: CoverRequest): Promise<Cover> {
    const size = openAIImageSize(this.model, req.width, req.height);
    const body = await this.http.json("/v1/images/generations", {
      method: "POST",
      body: {
        model: this.model,
        prompt: req.prompt,
        n: 1,
        size,
        ...(this.model.startsWith("gpt-image-") ? {} : { response_format: "b64_json" }),
      },
      signal: req.signal,
    });
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success) throw this.http.failure(`answered without a b64_json image: ${parsed.error.issues[0]?.message ?? ""}`);
    const first = parsed.data.data[0]!;
    const { jpeg, source } = await exactJpeg(Buffer.from(first.b64_json, "base64"), req, req.signal, (m) => this.http.failure(m));
    return {
      jpeg,
      details: { size, variant: req.variant, generated: source, ...(first.revised_prompt ? { revisedPrompt: first.revised_prompt } : {}) },
    };
  }
}
