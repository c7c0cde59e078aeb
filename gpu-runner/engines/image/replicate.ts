import type { RetryPolicy } from "../http";
import { outputFetchOf, type OutputFileFetch, type OutputFileHosts } from "../output-files";
import { ReplicatePredictions, replicateOutputBytes } from "../replicate-predictions";
import { NetworkImageEngine } from "./network";
import { type Cover, type CoverRequest } from "./interface";
import { exactJpeg, MAX_IMAGE_BYTES } from "./jpeg";

/**
 * Replicate's predictions API with a FLUX model (default `black-forest-labs/flux-schnell`): create a
 * prediction (`POST /models/owner/name/predictions` for an official model, `POST /predictions` for
 * `owner/name:version`) with `Prefer: wait`, poll the prediction's `urls.get` until it is
 * `succeeded`, `failed` or `canceled`, then download the first output file.
 *
 * The model takes an aspect ratio from a fixed list, not a size, so the nearest one is asked for and
 * the answer cropped to the exact size. The seed comes from the prompt and the variant: a rerun of
 * the same thumbnail asks for the same image, and variants differ.
 *
 * Output files live on another host (replicate.delivery): they are fetched as engines/output-files.ts
 * fetches any output (https, delivery hosts only, address-checked, no redirect, capped, without the
 * API token); a `data:` URI, which sync mode may answer, is decoded in place.
 */
export interface ReplicateImageConfig {
  apiToken: string;
  /** `owner/name:version`, or `owner/name` for an official model. */
  model: string;
  baseUrl: string;
  pollIntervalMs: number;
  retry: RetryPolicy;
  /** Where output files may come from. */
  files: OutputFileHosts;
}

export const REPLICATE_IMAGE_DEFAULT_MODEL = "black-forest-labs/flux-schnell";

/** flux-schnell's `aspect_ratio` values. */
export const FLUX_ASPECT_RATIOS = ["1:1", "16:9", "21:9", "3:2", "2:3", "4:5", "5:4", "3:4", "4:3", "9:16", "9:21"] as const;

export function nearestAspectRatio(width: number, height: number): (typeof FLUX_ASPECT_RATIOS)[number] {
  const target = Math.log(width / height);
  const off = (r: string) => {
    const [w, h] = r.split(":").map(Number) as [number, number];
    return Math.abs(Math.log(w / h) - target);
  };
  return FLUX_ASPECT_RATIOS.reduce((best, r) => (off(r) < off(best) ? r : best));
}

/** A 31-bit seed from the prompt and variant (FNV-1a), stable across runs. */
export function coverSeed(prompt: string, variant: number): number {
  let h = 0x811c9dc5;
  for (const ch of `${variant}\u0000${prompt}`) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h & 0x7fffffff;
}

export class ReplicateImageEngine extends NetworkImageEngine<ReplicateImageConfig> {
  readonly engine = "replicate";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });
  private readonly predictions = new ReplicatePredictions(this.http, this.config);

  async generate(req: CoverRequest): Promise<Cover> {
    const seed = coverSeed(req.prompt, req.variant);
    const aspectRatio = nearestAspectRatio(req.width, req.height);
    const input = { prompt: req.prompt, aspect_ratio: aspectRatio, num_outputs: 1, output_format: "jpg", output_quality: 90, seed };
    const prediction = await this.predictions.run(input, req.signal);
    const image = await replicateOutputBytes(firstOutput(prediction.output), "image", this.outputs(), {
      signal: req.signal,
      maxBytes: MAX_IMAGE_BYTES,
    });
    const { jpeg, source } = await exactJpeg(image, req, req.signal, (m) => this.http.failure(m));
    return { jpeg, details: { seed, aspectRatio, variant: req.variant, prediction: prediction.id, generated: source } };
  }

  private outputs(): OutputFileFetch {
    return outputFetchOf({ engine: this.engine, model: this.model, retry: this.config.retry, files: this.config.files }, this.http);
  }
}

/** FLUX models answer a list of file URLs; some models answer a single one. */
function firstOutput(output: unknown): string | undefined {
  const first: unknown = Array.isArray(output) ? output[0] : output;
  return typeof first === "string" && first !== "" ? first : undefined;
}
