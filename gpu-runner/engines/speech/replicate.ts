import { readFile } from "node:fs/promises";
import { z } from "zod";
import { sleep, withRetry } from "../../../contracts/retry";
import type { StepFailure } from "../../handler";
import type { CompressedFormat } from "../../media/ffmpeg";
import type { RetryPolicy } from "../http";
import { NetworkSpeechEngine, type EngineSegment, type EngineTranscript, type TranscribeOptions } from "./interface";
import { normaliseLanguage, primaryLanguage } from "./languages";
import { wordsFromSegments } from "./segments";

/**
 * Replicate's hosted Whisper (`openai/whisper`) over the predictions API: create a prediction
 * (`POST /predictions` for `owner/name:version`, `POST /models/owner/name/predictions` for an
 * official model) with `Prefer: wait` so short chunks answer in one round trip, then poll
 * `GET /predictions/{id}` until it is `succeeded`, `failed` or `canceled`. The model answers
 * `{ detected_language, transcription, segments: [{ start, end, text, avg_logprob, … }] }` with
 * segment times only, so word times are interpolated within segments. Audio goes inline as a data
 * URI (chunks are compressed and bounded by maxChunkSec, so this is a few hundred kilobytes in
 * memory), which avoids a separate file-upload round trip.
 *
 * A prediction that fails is retried with a new one (within the policy's attempts); each HTTP call
 * has the shared client's own retries. When the task is cancelled (or polling gives up) while a
 * prediction runs, the prediction is cancelled too (best effort), so the GPU stops billing.
 */
export interface ReplicateConfig {
  apiToken: string;
  /** `owner/name:version`, or `owner/name` for an official model. */
  model: string;
  /** Whisper checkpoint the model runs (its `model` input). */
  whisperModel: string;
  baseUrl: string;
  pollIntervalMs: number;
  inputFormat: CompressedFormat;
  maxConcurrency: number;
  retry: RetryPolicy;
}

/** openai/whisper on Replicate, large-v3 capable version. */
export const REPLICATE_DEFAULT_MODEL = "openai/whisper:8099696689d249cf8b122d833c36ac3f75505c666a395ca40ef26f68e7d3d16e";

const OutputSchema = z
  .object({
    detected_language: z.string().nullish(),
    transcription: z.string().nullish(),
    segments: z
      .array(z.object({ start: z.number(), end: z.number(), text: z.string(), avg_logprob: z.number().nullish() }).loose())
      .nullish(),
  })
  .loose();

/** `fail` builds the error for an answer of the wrong shape (the engine's client names engine and model). */
export function parseReplicateOutput(output: unknown, fallbackLanguage: string, fail: (message: string) => StepFailure): EngineTranscript {
  const parsed = OutputSchema.safeParse(output);
  if (!parsed.success) throw fail(`whisper output has an unexpected shape: ${parsed.error.issues[0]?.message ?? ""}`);
  const segments: EngineSegment[] = (parsed.data.segments ?? []).map((s) => ({
    start: Math.max(0, s.start),
    end: Math.max(0, s.end),
    text: s.text.trim(),
  }));
  // A segment's mean token log-probability is the only confidence Whisper exposes here.
  const confidences = (parsed.data.segments ?? []).map((s) =>
    typeof s.avg_logprob === "number" ? Math.min(1, Math.exp(s.avg_logprob)) : undefined,
  );
  const words = segments.flatMap((seg, i) =>
    wordsFromSegments([seg]).map((w) => (confidences[i] !== undefined ? { ...w, confidence: confidences[i] } : w)),
  );
  return { language: normaliseLanguage(parsed.data.detected_language, fallbackLanguage), words, segments };
}

const PredictionSchema = z
  .object({
    id: z.string(),
    status: z.enum(["starting", "processing", "succeeded", "failed", "canceled"]),
    output: z.unknown().optional(),
    error: z.unknown().optional(),
  })
  .loose();
type Prediction = z.infer<typeof PredictionSchema>;

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

export class ReplicateEngine extends NetworkSpeechEngine<ReplicateConfig> {
  readonly name = "replicate";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    const { retry } = this.config;
    const input = {
      audio: `data:${this.config.inputFormat === "ogg" ? "audio/ogg" : "audio/mpeg"};base64,${(await readFile(audioPath)).toString("base64")}`,
      model: this.config.whisperModel,
      transcription: "plain text",
      ...(opts.language ? { language: primaryLanguage(opts.language) } : {}),
    };
    let attempts = 0;
    try {
      const prediction = await withRetry(
        () => {
          attempts += 1;
          return this.predict(input, opts.signal);
        },
        {
          retries: retry.attempts - 1,
          baseMs: retry.baseDelayMs,
          maxMs: retry.maxDelayMs,
          signal: opts.signal,
          shouldRetry: (err) => err instanceof PredictionFailed,
        },
      );
      return parseReplicateOutput(prediction.output, opts.language ? primaryLanguage(opts.language) : "und", (m) => this.http.failure(m));
    } catch (err) {
      if (err instanceof PredictionFailed)
        throw this.http.failure(`${err.what} after ${attempts} attempt${attempts === 1 ? "" : "s"}${err.reason ? `: ${err.reason}` : ""}`);
      throw err;
    }
  }

  /** Runs one prediction to its end. */
  private async predict(input: Record<string, unknown>, signal: AbortSignal): Promise<Prediction> {
    const [ref, version] = this.config.model.split(":");
    // Prefer: wait holds the request open up to n seconds (1–60): keep it inside the attempt timeout.
    const waitSec = Math.max(1, Math.min(60, Math.floor(this.config.retry.timeoutMs / 1000) - 1));
    let p = this.prediction(
      await this.http.json(version ? "/predictions" : `/models/${ref}/predictions`, {
        method: "POST",
        headers: { prefer: `wait=${waitSec}` },
        body: version ? { version, input } : { input },
        signal,
      }),
    );
    try {
      while (!isDone(p)) {
        await sleep(this.config.pollIntervalMs, signal);
        p = this.prediction(await this.http.json(`/predictions/${encodeURIComponent(p.id)}`, { signal }));
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
