import { z } from "zod";
import { replicatePrediction } from "../../contracts/model-refs";
import { sleep, withRetry } from "../../contracts/retry";
import { EngineHttpClient, type RetryPolicy } from "./http";
import { fetchOutputBytes, outputFileUrl, type OutputFileFetch } from "./output-files";

/**
 * Replicate's predictions API as every Replicate backend uses it: create (holding the request open
 * with `Prefer: wait`), poll until the prediction ends, cancel it when nobody will read it, and make
 * a new prediction when one ends `failed` or `canceled` on Replicate's side.
 */

export interface ReplicatePredictionConfig {
  /** `owner/name:version`, or `owner/name` for an official model. */
  model: string;
  baseUrl: string;
  pollIntervalMs: number;
  retry: RetryPolicy;
}

/** A Replicate backend's whole configuration: its predictions' plus the API token. */
export interface ReplicateEngineConfig extends ReplicatePredictionConfig {
  apiToken: string;
}

/**
 * The HTTP client (token, retry policy, errors naming engine and model) and the predictions of one
 * Replicate backend, for engines that are not built on a capability's network base class.
 */
export function replicateClient(
  engine: string,
  config: ReplicateEngineConfig,
): { http: EngineHttpClient; predictions: ReplicatePredictions } {
  const http = new EngineHttpClient({
    engine,
    model: config.model,
    baseUrl: config.baseUrl,
    headers: { authorization: `Bearer ${config.apiToken}` },
    policy: config.retry,
  });
  return { http, predictions: new ReplicatePredictions(http, config) };
}

const PredictionSchema = z
  .object({
    id: z.string(),
    status: z.enum(["starting", "processing", "succeeded", "failed", "canceled"]),
    output: z.unknown().optional(),
    error: z.unknown().optional(),
    urls: z.object({ get: z.string().optional() }).loose().nullish(),
  })
  .loose();
export type Prediction = z.infer<typeof PredictionSchema>;

const isDone = (p: Prediction) => p.status === "succeeded" || p.status === "failed" || p.status === "canceled";

/** A prediction that ended `failed` or `canceled` on Replicate's side: worth a new prediction. */
class PredictionFailed extends Error {
  constructor(
    readonly what: string,
    readonly reason: string,
  ) {
    super(what);
  }
}

export class ReplicatePredictions {
  constructor(
    private readonly http: EngineHttpClient,
    private readonly config: ReplicatePredictionConfig,
  ) {}

  /** Runs predictions of `input` until one succeeds or the retry policy gives up; errors name engine and model. */
  async run(input: Record<string, unknown>, signal: AbortSignal): Promise<Prediction> {
    const { retry } = this.config;
    let attempts = 0;
    try {
      return await withRetry(
        () => {
          attempts += 1;
          return this.predict(input, signal);
        },
        {
          retries: retry.attempts - 1,
          baseMs: retry.baseDelayMs,
          maxMs: retry.maxDelayMs,
          signal,
          shouldRetry: (err) => err instanceof PredictionFailed,
        },
      );
    } catch (err) {
      if (err instanceof PredictionFailed)
        throw this.http.failure(`${err.what} after ${attempts} attempt${attempts === 1 ? "" : "s"}${err.reason ? `: ${err.reason}` : ""}`);
      throw err;
    }
  }

  /** Runs one prediction to its end. */
  private async predict(input: Record<string, unknown>, signal: AbortSignal): Promise<Prediction> {
    // The model's shape checked and each part escaped: no reference can reach another API path.
    const { path, version } = replicatePrediction(this.config.model);
    // Prefer: wait holds the request open up to n seconds (1–60): keep it inside the attempt timeout.
    const waitSec = Math.max(1, Math.min(60, Math.floor(this.config.retry.timeoutMs / 1000) - 1));
    let p = this.prediction(
      await this.http.json(path, {
        method: "POST",
        headers: { prefer: `wait=${waitSec}` },
        body: version ? { version, input } : { input },
        signal,
      }),
    );
    try {
      while (!isDone(p)) {
        await sleep(this.config.pollIntervalMs, signal);
        p = this.prediction(await this.http.json(this.pollPath(p), { signal }));
      }
    } catch (err) {
      // Cancelled task, lost lease, or a poll that kept failing: nobody will read this prediction.
      this.cancel(p.id);
      throw err;
    }
    if (p.status !== "succeeded")
      throw new PredictionFailed(
        `prediction ${p.id} ${p.status}`,
        typeof p.error === "string" ? p.error.replace(/\s+/g, " ").trim().slice(0, 200) : "",
      );
    return p;
  }

  /** `urls.get` as the API handed it out, when it points at the API we are configured with (it carries our token). */
  private pollPath(p: Prediction): string {
    const get = p.urls?.get;
    return get && get.startsWith(`${this.config.baseUrl.replace(/\/+$/, "")}/`) ? get : `/predictions/${encodeURIComponent(p.id)}`;
  }

  private prediction(body: unknown): Prediction {
    const parsed = PredictionSchema.safeParse(body);
    if (!parsed.success) throw this.http.failure(`answered something that is not a prediction: ${parsed.error.issues[0]?.message ?? ""}`);
    return parsed.data;
  }

  /** Fire and forget: the task is over either way, this only stops the remote GPU. */
  private cancel(id: string): void {
    this.http
      .json(`/predictions/${encodeURIComponent(id)}/cancel`, { method: "POST", signal: AbortSignal.timeout(5_000), attempts: 1 })
      .catch(() => undefined);
  }
}

/**
 * A prediction's output file as bytes: a `data:` URI of the expected media type inline, or a URL on
 * the provider's delivery hosts (output-files.ts), read within `maxBytes`. No output fails at once.
 */
export async function replicateOutputBytes(
  ref: string | undefined,
  media: "image" | "audio",
  outputs: OutputFileFetch,
  opts: { signal: AbortSignal; maxBytes: number },
): Promise<Buffer> {
  if (ref === undefined) throw outputs.fail("prediction succeeded without an output file");
  const data = new RegExp(`^data:${media}/[\\w.+-]+;base64,(.*)$`, "s").exec(ref);
  if (data) return Buffer.from(data[1]!, "base64");
  return fetchOutputBytes(outputFileUrl(ref, outputs), outputs, { signal: opts.signal, accept: `${media}/*`, maxBytes: opts.maxBytes });
}
