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
import { vocabularyUnused, whisperPrompt } from "./vocabulary";
import { wordsFromSegments } from "./segments";

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

/**
 * `diarized_json`, the answer of OpenAI's diarizing transcription model (`gpt-4o-transcribe-diarize`):
 * segments labelled by speaker (`A`, `B`, … within one request), no word timings and no language.
 */
const DiarizedJsonSchema = z.object({
  duration: z.number().nullish(),
  text: z.string().nullish(),
  segments: z.array(z.object({ start: z.number(), end: z.number(), text: z.string(), speaker: z.string() }).loose()).nullish(),
});

/** A model that labels speakers itself (OpenAI documents `gpt-4o-transcribe-diarize`, whose names say so). */
export const isDiarizingModel = (model: string): boolean => /diarize/i.test(model);

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

/**
 * A diarized answer as the pipeline reads it: the segments and their speakers' turns, words spread
 * over each segment (the format has no word timings), the language the request named ("und" without).
 */
export function parseDiarizedJson(body: unknown, language: string, fail: (message: string) => StepFailure): EngineTranscript {
  const parsed = DiarizedJsonSchema.safeParse(body);
  if (!parsed.success) throw fail(`answered an unexpected diarized_json: ${parsed.error.issues[0]?.message ?? ""}`);
  const v = parsed.data;
  const raw = (v.segments ?? []).filter((s) => s.text.trim() !== "");
  const segments: EngineSegment[] = raw.map((s) => ({
    start: Math.max(0, s.start),
    end: Math.max(0, s.start, s.end),
    text: s.text.trim(),
  }));
  return {
    language,
    words: wordsFromSegments(segments),
    segments,
    speakerTurns: raw.map((s, i) => ({ start: segments[i]!.start, end: segments[i]!.end, speaker: s.speaker })),
    ...(typeof v.duration === "number" ? { durationSec: v.duration } : {}),
  };
}

export class OpenAICompatibleEngine extends NetworkSpeechEngine<OpenAICompatibleConfig> {
  readonly engine = "openai-compatible";
  // The diarizing model answers no language: it cannot choose one, and needs the job's (or the platform's only) language.
  override readonly detectsLanguage = !isDiarizingModel(this.config.model);
  override readonly labelsSpeakers = isDiarizingModel(this.config.model);
  private readonly http = this.httpClient(this.config.baseUrl, this.config.apiKey ? { authorization: `Bearer ${this.config.apiKey}` } : {});

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    if (this.labelsSpeakers) return this.transcribeDiarized(audioPath, opts);
    const vocabulary = opts.vocabulary?.length ? whisperPrompt(opts.vocabulary, "prompt") : null;
    const body = await this.send(audioPath, opts, (form) => {
      form.set("response_format", "verbose_json");
      form.append("timestamp_granularities[]", "word");
      form.append("timestamp_granularities[]", "segment");
      if (vocabulary?.prompt) form.set("prompt", vocabulary.prompt);
    });
    const r = parseVerboseJson(body, opts.language ? primaryLanguage(opts.language) : "und", (m) => this.http.failure(m));
    return vocabulary ? { ...r, vocabulary: vocabulary.use } : r;
  }

  /**
   * The diarizing model: `diarized_json` (speaker annotations come only in it), `chunking_strategy:
   * auto` (OpenAI refuses a diarizing request over 30 s without it), no prompt (OpenAI answers 400
   * "Prompt is not supported for diarization models"): the vocabulary is reported unused.
   */
  /** One request to `/v1/audio/transcriptions`: the file, the model and the language hint, plus what `fields` adds. */
  private send(audioPath: string, opts: TranscribeOptions, fields: (form: FormData) => void): Promise<unknown> {
    return this.http.multipart(
      "/v1/audio/transcriptions",
      async () => {
        // openAsBlob reads from disk as the body is sent: the chunk is never copied into memory.
        const file = await openAsBlob(audioPath, { type: MIME[this.config.inputFormat] });
        const form = new FormData();
        form.set("file", file, basename(audioPath));
        form.set("model", this.config.model);
        if (opts.language) form.set("language", primaryLanguage(opts.language));
        fields(form);
        return form;
      },
      { signal: opts.signal },
    );
  }

  private async transcribeDiarized(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    const body = await this.send(audioPath, opts, (form) => {
      form.set("response_format", "diarized_json");
      form.set("chunking_strategy", "auto");
    });
    const r = parseDiarizedJson(body, opts.language ? primaryLanguage(opts.language) : "und", (m) => this.http.failure(m));
    return opts.vocabulary?.length ? { ...r, vocabulary: vocabularyUnused(opts.vocabulary, "model_takes_no_prompt") } : r;
  }
}
