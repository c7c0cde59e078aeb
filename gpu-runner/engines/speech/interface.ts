import type { Word } from "../../../contracts/transcript";
import type { Settings } from "../../../contracts/settings";
import type { CompressedFormat } from "../../media/ffmpeg";
import type { VocabularyUse } from "./vocabulary";

/**
 * The one seam between the pipeline and a speech recogniser. The pipeline prepares audio (16 kHz
 * mono WAV, or a compressed copy for engines reached over the network), the engine returns words
 * with times relative to the file it was given; offsets, merging and segmentation stay in the
 * pipeline so every engine yields the same transcript shape.
 */
export interface EngineSegment {
  start: number;
  end: number;
  text: string;
  words?: Word[];
}

export interface EngineTranscript {
  /** ISO 639-1 code (normalised; engines that report names like "english" are mapped). */
  language: string;
  words: Word[];
  segments?: EngineSegment[];
  durationSec?: number;
  /**
   * How sure the engine is of `language`, 0..1, when it detected the language itself and says so
   * (Whisper on Workers AI reports `language_probability`); absent otherwise.
   */
  languageConfidence?: number;
  /**
   * Who speaks when, from an engine that labels speakers itself (`labelsSpeakers`): its own labels
   * (`A`, `B`, …), which the pipeline renumbers SPEAKER_NN by first appearance. Absent otherwise.
   */
  speakerTurns?: Array<{ start: number; end: number; speaker: string }>;
  /** What the engine did with TranscribeOptions.vocabulary (absent when none was given). */
  vocabulary?: VocabularyUse;
}

export interface TranscribeOptions {
  /** A hint; engines that auto-detect use it to skip detection. */
  language?: string;
  signal: AbortSignal;
  /**
   * Terms the caller wants recognised (names, products, jargon), most important first: the job's
   * terms, then the project glossary's preferred spellings. Each engine passes them on its own
   * documented way and says what it did in EngineTranscript.vocabulary.
   */
  vocabulary?: readonly string[];
  /**
   * The job's work directory, for per-job files an engine makes (PocketSphinx writes its
   * vocabulary dictionary and language model there); a temporary directory when absent.
   */
  workDir?: string;
}

export interface SpeechEngine {
  readonly engine: string;
  readonly model: string;
  /** Format of the audio handed to `transcribe`: `wav` for local engines, a compressed one for network engines. */
  readonly inputFormat: "wav" | CompressedFormat;
  /** Parallel `transcribe` calls the engine tolerates; the pipeline also caps by the runner's cores. */
  readonly maxConcurrency: number;
  /** Whether the engine can detect the language itself (else an absent hint means its only language). */
  readonly detectsLanguage: boolean;
  /**
   * Whether the engine tells speakers apart itself (OpenAI's diarizing transcription model): its
   * turns are then used as they are, no diarization engine runs, and the file is recognised in one
   * request, since its labels only hold within one.
   */
  readonly labelsSpeakers: boolean;
  /** The engine reduces noise itself (then the pipeline's denoise keeps to a gentle high-pass). */
  readonly reducesNoise: boolean;
  /** Languages the engine can recognise, or null when it handles any language. */
  readonly languages: readonly string[] | null;
  supportsLanguage(lang: string): boolean;
  transcribe(audioPath: string, opts: TranscribeOptions): Promise<EngineTranscript>;
}

export type SpeechEngineName = Settings["transcription"]["speechEngine"];

export type { EngineEnv } from "../config";
export type { VocabularyUse } from "./vocabulary";

export interface EngineFactoryOptions {
  /** Upper bound for one HTTP call; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
}
