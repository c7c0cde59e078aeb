/**
 * The seam between the dubbing pipeline's `diarize` stage and whatever tells speakers apart. The
 * engine gets the whole recording (16 kHz mono s16 WAV, prepared by the pipeline) and answers who
 * speaks when: turns sorted by time, never overlapping, each labelled `SPEAKER_00`, `SPEAKER_01`, …
 * numbered by first appearance, so the same recording always yields the same labels whichever
 * backend ran and voice assignments (`options.voiceAssignments`, keyed by these labels) read the
 * same way. Silence yields no turns.
 */
export interface SpeakerTurn {
  /** Seconds from the start of the file. */
  start: number;
  end: number;
  /** `SPEAKER_NN`. */
  speaker: string;
}

export interface Diarization {
  turns: SpeakerTurn[];
  /** Every label that appears in `turns`, in order of first appearance (`SPEAKER_00` first). */
  speakers: string[];
}

export interface DiarizeRequest {
  /** A 16 kHz mono signed 16-bit WAV (hosted engines also take an MP3 or Ogg copy as it is). */
  audioPath: string;
  /** Bounds on the number of speakers (1–32, min ≤ max, validated by the dubbing contract). */
  minSpeakers?: number;
  maxSpeakers?: number;
  signal: AbortSignal;
}

export interface DiarizationEngine {
  readonly engine: DiarizationEngineName;
  /** What tells speakers apart, as recorded on results (`silero-vad-v5+mfcc-pitch-ahc`, a Replicate model version). */
  readonly model: string;
  diarize(req: DiarizeRequest): Promise<Diarization>;
}

export const DIARIZATION_ENGINE_NAMES = ["local-mfcc", "replicate"] as const;
export type DiarizationEngineName = (typeof DIARIZATION_ENGINE_NAMES)[number];

export type { EngineEnv } from "../config";

export interface DiarizationFactoryOptions {
  /** Upper bound for one HTTP call; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
  /** The hosted backend's model (`owner/name:version`); absent: the backend's default. */
  model?: string;
}
