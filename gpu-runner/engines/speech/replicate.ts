import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { StepFailure } from "../../../contracts/step-failure";
import type { CompressedFormat } from "../../media/ffmpeg";
import type { RetryPolicy } from "../http";
import { ReplicatePredictions } from "../replicate-predictions";
import { NetworkSpeechEngine } from "./network";
import { type EngineSegment, type EngineTranscript, type TranscribeOptions } from "./interface";
import { normaliseLanguage, primaryLanguage } from "./languages";
import { wordsFromSegments } from "./segments";
import { whisperPrompt } from "./vocabulary";

/**
 * Replicate's hosted Whisper (`openai/whisper`) over the predictions API: create a prediction
 * (`POST /predictions` for `owner/name:version`, `POST /models/owner/name/predictions` for an
 * official model) with `Prefer: wait` so short chunks answer in one round trip, then poll
 * `GET /predictions/{id}` until it is `succeeded`, `failed` or `canceled`. The model answers
 * `{ detected_language, transcription, segments: [{ start, end, text, avg_logprob, … }] }` with
 * segment times only, so word times are interpolated within segments. Audio goes inline as a data
 * URI (chunks are compressed and bounded by maxChunkSec, so this is a few hundred kilobytes in
 * memory), which avoids a separate file-upload round trip. Vocabulary goes in the model's
 * `initial_prompt` input ("optional text to provide as a prompt for the first window"), capped to
 * Whisper's prompt window (vocabulary.ts).
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

export class ReplicateEngine extends NetworkSpeechEngine<ReplicateConfig> {
  readonly engine = "replicate";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });
  private readonly predictions = new ReplicatePredictions(this.http, this.config);

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    const vocabulary = opts.vocabulary?.length ? whisperPrompt(opts.vocabulary, "initial_prompt") : null;
    const input = {
      audio: `data:${this.config.inputFormat === "ogg" ? "audio/ogg" : "audio/mpeg"};base64,${(await readFile(audioPath)).toString("base64")}`,
      model: this.config.whisperModel,
      transcription: "plain text",
      ...(opts.language ? { language: primaryLanguage(opts.language) } : {}),
      ...(vocabulary?.prompt ? { initial_prompt: vocabulary.prompt } : {}),
    };
    const prediction = await this.predictions.run(input, opts.signal);
    const r = parseReplicateOutput(prediction.output, opts.language ? primaryLanguage(opts.language) : "und", (m) => this.http.failure(m));
    return vocabulary ? { ...r, vocabulary: vocabulary.use } : r;
  }
}
