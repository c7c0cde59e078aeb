import { readFile } from "node:fs/promises";
import Replicate from "replicate";
import { z } from "zod";
import { StepFailure } from "../../handler";
import type { CompressedFormat } from "../../media/ffmpeg";
import { backoffDelay, isRetryableStatus, sleep, type RetryPolicy } from "./http";
import { NetworkSpeechEngine, type EngineSegment, type EngineTranscript, type TranscribeOptions } from "./interface";
import { normaliseLanguage, primaryLanguage } from "./languages";
import { wordsFromSegments } from "./segments";

/**
 * Replicate's hosted Whisper (`openai/whisper`) through the `replicate` package. The model answers
 * `{ detected_language, transcription, segments: [{ start, end, text, avg_logprob, … }] }` with
 * segment times only, so word times are interpolated within segments. Audio goes inline as a data
 * URI (chunks are compressed and bounded by maxChunkSec, so this is a few hundred kilobytes in
 * memory), which avoids a separate file-upload round trip.
 */
export interface ReplicateConfig {
  apiToken: string;
  /** `owner/name:version`. */
  model: string;
  /** Whisper checkpoint the model runs (its `model` input). */
  whisperModel: string;
  baseUrl?: string;
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
    segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string(), avg_logprob: z.number().nullish() }).loose()).nullish(),
  })
  .loose();

export function parseReplicateOutput(output: unknown, fallbackLanguage: string): EngineTranscript {
  const parsed = OutputSchema.safeParse(output);
  if (!parsed.success) throw new StepFailure("processing_failed", `Replicate whisper output has an unexpected shape: ${parsed.error.issues[0]?.message ?? ""}`, true);
  const segments: EngineSegment[] = (parsed.data.segments ?? []).map((s) => ({ start: Math.max(0, s.start), end: Math.max(0, s.end), text: s.text.trim() }));
  // A segment's mean token log-probability is the only confidence Whisper exposes here.
  const confidences = (parsed.data.segments ?? []).map((s) => (typeof s.avg_logprob === "number" ? Math.min(1, Math.exp(s.avg_logprob)) : undefined));
  const words = segments.flatMap((seg, i) => wordsFromSegments([seg]).map((w) => (confidences[i] !== undefined ? { ...w, confidence: confidences[i] } : w)));
  return { language: normaliseLanguage(parsed.data.detected_language, fallbackLanguage), words, segments };
}

interface HttpFailure {
  name: string;
  response?: { status: number; headers: Headers };
}

export class ReplicateEngine extends NetworkSpeechEngine<ReplicateConfig> {
  readonly name = "replicate";

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    const { retry } = this.config;
    const client = new Replicate({
      auth: this.config.apiToken,
      ...(this.config.baseUrl ? { baseUrl: this.config.baseUrl } : {}),
      // replicate@1.4.0's "data-uri" strategy encodes the client object instead of the inputs, so
      // the audio is passed as a ready-made data URI string and the default strategy (which only
      // touches Blob inputs) leaves it alone.
      fileEncodingStrategy: "default",
      useFileOutput: false,
      // Every request the package makes gets the per-call timeout and the task's abort signal.
      fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.any([opts.signal, AbortSignal.timeout(retry.timeoutMs)]) }),
    });
    const input = {
      audio: `data:${this.config.inputFormat === "ogg" ? "audio/ogg" : "audio/mpeg"};base64,${(await readFile(audioPath)).toString("base64")}`,
      model: this.config.whisperModel,
      transcription: "plain text",
      ...(opts.language ? { language: primaryLanguage(opts.language) } : {}),
    };
    let lastError = "";
    for (let attempt = 1; attempt <= retry.attempts; attempt++) {
      opts.signal.throwIfAborted();
      let retryAfter: string | null = null;
      try {
        const output = await client.run(this.config.model as `${string}/${string}:${string}`, {
          input,
          wait: { mode: "block", timeout: 60 },
          signal: opts.signal,
        });
        return parseReplicateOutput(output, opts.language ? primaryLanguage(opts.language) : "und");
      } catch (err) {
        if (opts.signal.aborted) throw opts.signal.reason;
        if (err instanceof StepFailure) throw err;
        const failure = err as HttpFailure;
        const status = failure.name === "ApiError" ? failure.response?.status : undefined;
        lastError = (err as Error).message;
        if (status !== undefined && !isRetryableStatus(status)) {
          throw new StepFailure("processing_failed", `speech engine ${this.name} rejected the request: ${lastError}`, false);
        }
        retryAfter = failure.response?.headers.get("retry-after") ?? null;
      }
      if (attempt < retry.attempts) await sleep(backoffDelay(attempt, retry, retryAfter), opts.signal);
    }
    throw new StepFailure("processing_failed", `speech engine ${this.name} failed after ${retry.attempts} attempts: ${lastError}`, true);
  }
}
