import { openAsBlob } from "node:fs";
import { basename } from "node:path";
import { z } from "zod";
import type { Word } from "../../../contracts/transcript";
import type { StepFailure } from "../../../contracts/step-failure";
import type { CompressedFormat } from "../../media/ffmpeg";
import type { RetryPolicy } from "../http";
import { NetworkSpeechEngine } from "./network";
import { type EngineSegment, type EngineTranscript, type TranscribeOptions } from "./interface";
import { normaliseLanguage, primaryLanguage } from "./languages";
import { whisperPrompt } from "./vocabulary";

/**
 * An OpenAI-compatible `/v1/audio/transcriptions` endpoint: OpenAI itself, or on the GPU box a
 * faster-whisper server (speaches), whisper.cpp's server or vLLM. `verbose_json` with word and
 * segment timestamp granularities gives language, duration, segments and words in one answer.
 * Vocabulary goes in the documented `prompt` field ("text to guide the model's style"; Whisper
 * follows the spellings it sees there), capped to Whisper's prompt window (vocabulary.ts).
 */
export interface OpenAICompatibleConfig {
  baseUrl: string;
  apiKey?: string;
  model: string;
  inputFormat: "wav" | CompressedFormat;
  maxConcurrency: number;
  retry: RetryPolicy;
}

const VerboseJsonSchema = z.object({
  language: z.string().nullish(),
  duration: z.number().nullish(),
  text: z.string().nullish(),
  words: z.array(z.object({ word: z.string(), start: z.number(), end: z.number(), probability: z.number().nullish() })).nullish(),
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string(), avg_logprob: z.number().nullish() })).nullish(),
});
export type VerboseJson = z.infer<typeof VerboseJsonSchema>;

const MIME: Record<OpenAICompatibleConfig["inputFormat"], string> = { wav: "audio/wav", mp3: "audio/mpeg", ogg: "audio/ogg" };

/** `fail` builds the error for an answer of the wrong shape (the engine's client names engine and model). */
export function parseVerboseJson(body: unknown, fallbackLanguage: string, fail: (message: string) => StepFailure): EngineTranscript {
  const parsed = VerboseJsonSchema.safeParse(body);
  if (!parsed.success) throw fail(`answered an unexpected verbose_json: ${parsed.error.issues[0]?.message ?? ""}`);
  const v = parsed.data;
  const words: Word[] = (v.words ?? [])
    .filter((w) => w.word.trim() !== "")
    .map((w) => ({
      word: w.word.trim(),
      start: Math.max(0, w.start),
      end: Math.max(0, w.start, w.end),
      ...(typeof w.probability === "number" ? { confidence: Math.min(1, Math.max(0, w.probability)) } : {}),
    }));
  const segments: EngineSegment[] = (v.segments ?? []).map((s) => ({
    start: Math.max(0, s.start),
    end: Math.max(0, s.end),
    text: s.text.trim(),
  }));
  return {
    language: normaliseLanguage(v.language, fallbackLanguage),
    words,
    segments,
    ...(typeof v.duration === "number" ? { durationSec: v.duration } : {}),
  };
}

export class OpenAICompatibleEngine extends NetworkSpeechEngine<OpenAICompatibleConfig> {
  readonly engine = "openai-compatible";
  private readonly http = this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {});

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    const vocabulary = opts.vocabulary?.length ? whisperPrompt(opts.vocabulary, "prompt") : null;
    const body = await this.http.multipart(
      "/v1/audio/transcriptions",
      async () => {
        // openAsBlob reads from disk as the body is sent: the chunk is never copied into memory.
        const file = await openAsBlob(audioPath, { type: MIME[this.config.inputFormat] });
        const form = new FormData();
        form.set("file", file, basename(audioPath));
        form.set("model", this.config.model);
        form.set("response_format", "verbose_json");
        form.append("timestamp_granularities[]", "word");
        form.append("timestamp_granularities[]", "segment");
        if (opts.language) form.set("language", primaryLanguage(opts.language));
        if (vocabulary?.prompt) form.set("prompt", vocabulary.prompt);
        return form;
      },
      { signal: opts.signal },
    );
    const r = parseVerboseJson(body, opts.language ? primaryLanguage(opts.language) : "und", (m) => this.http.failure(m));
    return vocabulary ? { ...r, vocabulary: vocabulary.use } : r;
  }
}
