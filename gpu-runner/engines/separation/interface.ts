/**
 * The seam between the dubbing pipeline's `separate_audio` stage and whatever splits the source's
 * sound into the speech to replace and the background to keep. The engine gets the source's sound
 * (48 kHz FLAC, its own channels up to stereo, prepared by the pipeline) and where the transcript
 * says someone speaks, and writes two FLAC files, both 48 kHz, with the source's channels and
 * duration:
 *
 * - `backgroundOut`: what the dub keeps under the new speech (music, effects, room), with the
 *   original speech lowered or removed inside the speech stretches;
 * - `vocalsOut`: the original speech inside the speech stretches, silence elsewhere.
 *
 * How well speech is taken out differs by backend, so each one records `method` on the dubbing
 * (`engines.separation`): a reader of a result can tell ducked speech from separated speech.
 */
export interface SpeechStretch {
  /** Seconds from the start of the file. */
  start: number;
  end: number;
}

export interface SeparateRequest {
  /** The source's sound: 48 kHz FLAC, mono or stereo. */
  audioPath: string;
  /** Where speech is (merged, sorted, not overlapping): the stretches the new speech replaces. */
  speech: readonly SpeechStretch[];
  /** How far speech left in the background is lowered, in dB (0–60, the dubbing settings' `duckDb`). */
  duckDb: number;
  vocalsOut: string;
  backgroundOut: string;
  signal: AbortSignal;
}

export interface SeparationEngine {
  /** As recorded on results: `ffmpeg-filters` (the local backend) or `replicate`. */
  readonly engine: "ffmpeg-filters" | "replicate";
  /** What the engine does to the sound, in words, recorded on results (a hosted one names its model). */
  readonly method: string;
  separate(req: SeparateRequest): Promise<void>;
}

/** The names settings choose engines by (contracts/settings.ts `SEPARATION_ENGINES`). */
export const SEPARATION_ENGINE_NAMES = ["local-filters", "replicate"] as const;
export type SeparationEngineName = (typeof SEPARATION_ENGINE_NAMES)[number];

export type { EngineEnv } from "../config";

export interface SeparationFactoryOptions {
  /** Upper bound for one HTTP call; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The hosted backend's model (`owner/name:version`); absent: the backend's default. */
  model?: string;
}

/** The engines' common output format: what the mix reads. */
export const SEPARATION_RATE = 48_000;
