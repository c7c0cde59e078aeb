/**
 * What the fake speech models "hear" in any audio they are sent, in a provider-neutral shape; each
 * fake renders it in its API's own format (verbose_json, Workers AI's result, Replicate's output).
 */
export interface SpokenWord {
  word: string;
  start: number;
  end: number;
  /** Whisper's word probability (faster-whisper servers send it; OpenAI does not). */
  probability?: number;
}

export interface SpokenSegment {
  start: number;
  end: number;
  text: string;
  avgLogprob?: number;
  words: SpokenWord[];
}

export interface SpokenTranscript {
  /** ISO 639-1 code. */
  language: string;
  duration: number;
  segments: SpokenSegment[];
}

export const HELLO_WORLD: SpokenTranscript = {
  language: "en",
  duration: 3.2,
  segments: [
    {
      start: 0.1,
      end: 1.1,
      text: "Hello world.",
      avgLogprob: -0.2,
      words: [
        { word: "Hello", start: 0.1, end: 0.5, probability: 0.93 },
        { word: "world.", start: 0.6, end: 1.1 },
      ],
    },
  ],
};

/** Whisper reports languages by English name in some APIs (OpenAI's verbose_json, Replicate). */
const WHISPER_NAMES: Record<string, string> = {
  en: "english",
  es: "spanish",
  fr: "french",
  de: "german",
  ca: "catalan",
  it: "italian",
  pt: "portuguese",
};

export function whisperLanguageName(code: string): string {
  return WHISPER_NAMES[code] ?? code;
}

export function fullText(t: SpokenTranscript): string {
  return t.segments.map((s) => s.text.trim()).join(" ");
}
