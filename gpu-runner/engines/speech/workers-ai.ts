import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { Word } from "../../../contracts/transcript";
import type { StepFailure } from "../../../contracts/step-failure";
import type { RetryPolicy } from "../http";
import { NetworkSpeechEngine } from "./network";
import { type EngineSegment, type EngineTranscript, type TranscribeOptions } from "./interface";
import { normaliseLanguage, primaryLanguage } from "./languages";
import { workersAiRunPath } from "../../../contracts/model-refs";
import { vocabularyUnused, whisperPrompt, type WhisperPrompt } from "./vocabulary";

/**
 * Cloudflare Workers AI over its REST API:
 * `POST {baseUrl}/accounts/{account}/ai/run/@cf/openai/whisper-large-v3-turbo` with a JSON body
 * `{ audio: <base64>, language? }`, answered with `{ success, result: { text, transcription_info:
 * { language, duration }, segments: [{ start, end, text, words: [{ word, start, end }] }] } }`.
 * The API takes the audio base64-encoded inside JSON, so a chunk is read into memory; chunks are
 * compressed and bounded by `maxChunkSec`, which keeps that to a few hundred kilobytes.
 *
 * Vocabulary goes in `initial_prompt` ("a text prompt to help provide context to the model"),
 * capped to Whisper's prompt window (vocabulary.ts), for the models whose input schema has it
 * (WORKERS_AI_PROMPT_MODELS); `@cf/openai/whisper` and `whisper-tiny-en` take only audio, so with
 * those every term is dropped as model_takes_no_prompt and the request is sent without it.
 */
export interface WorkersAIConfig {
  baseUrl: string;
  accountId: string;
  apiToken: string;
  model: string;
  maxConcurrency: number;
  /** Workers AI takes base64 audio in JSON: the compact mp3 keeps chunks small. */
  inputFormat: "mp3";
  retry: RetryPolicy;
}

export { WORKERS_AI_DEFAULT_BASE_URL } from "../config";
export const WORKERS_AI_DEFAULT_MODEL = "@cf/openai/whisper-large-v3-turbo";

/** Workers AI speech models whose documented input takes `initial_prompt`. */
export const WORKERS_AI_PROMPT_MODELS: ReadonlySet<string> = new Set(["@cf/openai/whisper-large-v3-turbo"]);

const WordSchema = z.object({ word: z.string(), start: z.number(), end: z.number() });
const ResponseSchema = z.object({
  success: z.boolean().optional(),
  errors: z.array(z.object({ message: z.string().optional() }).loose()).optional(),
  result: z
    .object({
      text: z.string().nullish(),
      transcription_info: z
        .object({ language: z.string().nullish(), language_probability: z.number().nullish(), duration: z.number().nullish() })
        .loose()
        .nullish(),
      segments: z
        .array(z.object({ start: z.number(), end: z.number(), text: z.string(), words: z.array(WordSchema).nullish() }).loose())
        .nullish(),
    })
    .loose()
    .nullish(),
});

/** `fail` builds the error for an answer of the wrong shape (the engine's client names engine and model). */
export function parseWorkersAIResponse(
  body: unknown,
  fallbackLanguage: string,
  fail: (message: string) => StepFailure,
  detected = fallbackLanguage === "und",
): EngineTranscript {
  const parsed = ResponseSchema.safeParse(body);
  if (!parsed.success || !parsed.data.result) {
    const reason = parsed.success
      ? parsed.data.errors?.map((e) => e.message).join("; ") || "no result"
      : (parsed.error.issues[0]?.message ?? "");
    throw fail(`answered without a transcription: ${reason}`);
  }
  const r = parsed.data.result;
  const segments: EngineSegment[] = (r.segments ?? []).map((s) => ({
    start: Math.max(0, s.start),
    end: Math.max(0, s.end),
    text: s.text.trim(),
    ...(s.words?.length ? { words: s.words.map(toWord).filter((w): w is Word => w !== null) } : {}),
  }));
  const words = segments.flatMap((s) => s.words ?? []);
  const duration = r.transcription_info?.duration;
  const probability = r.transcription_info?.language_probability;
  return {
    language: normaliseLanguage(r.transcription_info?.language, fallbackLanguage),
    words,
    segments,
    ...(typeof duration === "number" ? { durationSec: duration } : {}),
    // A probability means a detection; given a language, Whisper detects nothing and reports none worth keeping.
    ...(typeof probability === "number" && detected && probability >= 0 && probability <= 1 ? { languageConfidence: probability } : {}),
  };
}

function toWord(w: z.infer<typeof WordSchema>): Word | null {
  const word = w.word.trim();
  return word ? { word, start: Math.max(0, w.start), end: Math.max(0, w.start, w.end) } : null;
}

export class WorkersAIEngine extends NetworkSpeechEngine<WorkersAIConfig> {
  readonly engine = "workers-ai";
  private readonly http = this.httpClient(this.config.baseUrl, { authorization: `Bearer ${this.config.apiToken}` });

  async transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript> {
    const audio = (await readFile(audioPath)).toString("base64");
    const vocabulary = this.vocabulary(opts.vocabulary);
    const body = await this.http.json(workersAiRunPath(this.config.accountId, this.config.model), {
      method: "POST",
      body: {
        audio,
        ...(opts.language ? { language: primaryLanguage(opts.language) } : {}),
        ...(vocabulary?.prompt ? { initial_prompt: vocabulary.prompt } : {}),
      },
      signal: opts.signal,
    });
    const r = parseWorkersAIResponse(body, opts.language ? primaryLanguage(opts.language) : "und", (m) => this.http.failure(m));
    return vocabulary ? { ...r, vocabulary: vocabulary.use } : r;
  }

  private vocabulary(terms: readonly string[] | undefined): WhisperPrompt | null {
    if (!terms?.length) return null;
    if (!WORKERS_AI_PROMPT_MODELS.has(this.config.model)) return { prompt: null, use: vocabularyUnused(terms, "model_takes_no_prompt") };
    return whisperPrompt(terms, "initial_prompt");
  }
}
