import { z } from "zod";
import type { RetryPolicy } from "../http";
import { NetworkImageEngine } from "./network";
import { type Cover, type CoverRequest } from "./interface";
import { exactJpeg } from "./jpeg";
import { workersAiRunPath } from "../../../contracts/model-refs";

/**
 * Cloudflare Workers AI over its REST API:
 * `POST {baseUrl}/accounts/{account}/ai/run/@cf/black-forest-labs/flux-1-schnell` with a JSON body
 * `{ prompt, steps }`, answered with `{ result: { image: <base64 JPEG> }, success, errors, messages }`.
 * The model makes 1024×1024 images and takes no size or seed, so the image is cropped to the
 * requested frame and variants differ only by the model's own sampling.
 */
export interface WorkersAIImageConfig {
  baseUrl: string;
  accountId: string;
  apiToken: string;
  model: string;
  /** Diffusion steps, 1–8 (the model's bound); more is slower and a little sharper. */
  steps: number;
  retry: RetryPolicy;
}

export const WORKERS_AI_IMAGE_DEFAULT_MODEL = "@cf/black-forest-labs/flux-1-schnell";
export const WORKERS_AI_IMAGE_DEFAULT_STEPS = 4;
export const WORKERS_AI_IMAGE_MAX_STEPS = 8;
/** The model rejects longer prompts. */
const MAX_PROMPT = 2048;

const ResponseSchema = z.object({
  success: z.boolean().optional(),
  errors: z.array(z.object({ message: z.string().optional() }).loose()).optional(),
  result: z
    .object({ image: z.string().min(1) })
    .loose()
    .nullish(),
});

export class WorkersAIImageEngine extends NetworkImageEngine<WorkersAIImageConfig> {
  readonly engine = "workers-ai";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });

  async generate(req: CoverRequest): Promise<Cover> {
    const body = await this.http.json(workersAiRunPath(this.config.accountId, this.config.model), {
      method: "POST",
      body: { prompt: req.prompt.slice(0, MAX_PROMPT), steps: this.config.steps },
      signal: req.signal,
    });
    const parsed = ResponseSchema.safeParse(body);
    if (!parsed.success || !parsed.data.result) {
      const reason = parsed.success
        ? parsed.data.errors?.map((e) => e.message).join("; ") || "no result"
        : (parsed.error.issues[0]?.message ?? "");
      throw this.http.failure(`answered without an image: ${reason}`);
    }
    const { jpeg, source } = await exactJpeg(Buffer.from(parsed.data.result.image, "base64"), req, req.signal, (m) => this.http.failure(m));
    return { jpeg, details: { steps: this.config.steps, variant: req.variant, generated: source } };
  }
}
