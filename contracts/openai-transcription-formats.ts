import { toSrt, toVtt } from "./subtitles";
import { joinWords } from "./text-words";
import type { OpenAiResponseFormat, TimestampGranularity } from "./openai-transcription-request";
import type { Segment } from "./transcript";

/**
 * A finished transcript in the `response_format`s of OpenAI's transcription API. SRT and WebVTT are
 * the platform's own writers (contracts/subtitles.ts), without speaker names, as OpenAI's files have
 * none. Fields OpenAI's segments carry that no engine here produces get fixed, documented values
 * (docs/api.md "OpenAI-compatible transcription"): never a made-up measurement.
 */

export interface TranscriptForOpenAi {
  /** The transcript's language code (`en`), as the job recorded it. */
  language: string;
  durationSec: number;
  segments: readonly Segment[];
}

/** OpenAI's `verbose_json` segment. */
export interface OpenAiSegment {
  id: number;
  /** Where the segment starts in Whisper's unit, 10 ms frames. */
  seek: number;
  start: number;
  end: number;
  text: string;
  /** No engine here exposes token ids: always empty. */
  tokens: number[];
  /** Nothing is sampled: 0. */
  temperature: number;
  /** ln(the segment's confidence) when the engine gave one; 0 when it gave none. */
  avg_logprob: number;
  /** Not measured: 0 (below any threshold a client checks). */
  compression_ratio: number;
  /** A segment is speech the recogniser heard: 0. */
  no_speech_prob: number;
}

export interface OpenAiWord {
  word: string;
  start: number;
  end: number;
}

/** Usage as OpenAI reports it for models billed by duration: whole seconds of audio, rounded up. */
export interface OpenAiUsage {
  type: "duration";
  seconds: number;
}

export interface OpenAiVerboseTranscription {
  task: "transcribe";
  language: string;
  duration: number;
  text: string;
  segments?: OpenAiSegment[];
  words?: OpenAiWord[];
  usage: OpenAiUsage;
}

export interface RenderedTranscription {
  contentType: string;
  body: string;
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The whole text: the segments' texts as one paragraph, as OpenAI's `text` is. */
export function transcriptText(segments: readonly Segment[]): string {
  return joinWords(segments.map((s) => s.text));
}

function usageOf(t: TranscriptForOpenAi): OpenAiUsage {
  return { type: "duration", seconds: Math.ceil(t.durationSec) };
}

export function openAiSegment(s: Segment): OpenAiSegment {
  return {
    id: s.id,
    seek: Math.round(s.start * 100),
    start: round3(s.start),
    end: round3(s.end),
    text: s.text,
    tokens: [],
    temperature: 0,
    avg_logprob: s.confidence !== undefined && s.confidence > 0 ? round3(Math.log(s.confidence)) : 0,
    compression_ratio: 0,
    no_speech_prob: 0,
  };
}

/** Every word with its timing, in order; a segment without word timings contributes none. */
export function openAiWords(segments: readonly Segment[]): OpenAiWord[] {
  return segments.flatMap((s) => (s.words ?? []).map((w) => ({ word: w.word, start: round3(w.start), end: round3(w.end) })));
}

/**
 * `verbose_json`: segments unless only words were asked for (OpenAI's default granularity is
 * segment), words when `word` was asked for.
 */
export function verboseTranscription(t: TranscriptForOpenAi, granularities: readonly TimestampGranularity[]): OpenAiVerboseTranscription {
  const wantSegments = granularities.length === 0 || granularities.includes("segment");
  const wantWords = granularities.includes("word");
  return {
    task: "transcribe",
    language: t.language,
    duration: round3(t.durationSec),
    text: transcriptText(t.segments),
    ...(wantSegments ? { segments: t.segments.map(openAiSegment) } : {}),
    ...(wantWords ? { words: openAiWords(t.segments) } : {}),
    usage: usageOf(t),
  };
}

const TEXT = "text/plain; charset=utf-8";
const JSON_TYPE = "application/json";

export function renderTranscription(
  t: TranscriptForOpenAi,
  format: OpenAiResponseFormat,
  granularities: readonly TimestampGranularity[],
): RenderedTranscription {
  switch (format) {
    case "json":
      return { contentType: JSON_TYPE, body: JSON.stringify({ text: transcriptText(t.segments), usage: usageOf(t) }) };
    case "verbose_json":
      return { contentType: JSON_TYPE, body: JSON.stringify(verboseTranscription(t, granularities)) };
    case "text":
      return { contentType: TEXT, body: `${transcriptText(t.segments)}\n` };
    case "srt":
      return { contentType: TEXT, body: toSrt(t.segments) };
    case "vtt":
      return { contentType: TEXT, body: toVtt(t.segments) };
  }
}
