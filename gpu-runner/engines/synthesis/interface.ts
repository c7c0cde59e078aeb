import { z } from "zod";
import type { TimeRange } from "./audio";
import type { VoiceMeasurements } from "./voice-analysis";

/**
 * The seam between dubbing and whatever speaks: a voice is created once per speaker (a `vce_`
 * record stores its VoiceSpec as JSON), then every translated segment is synthesised with it.
 *
 * Two kinds of voice, recorded as what they are:
 * - `profile` (local engines): a stock TTS voice (an eSpeak NG voice and variant, or a Festival HTS
 *   voice) with pitch and speaking rate set to match the speaker's measured median F0 and syllable
 *   rate. Not the speaker's timbre: a voice profile, honestly named.
 * - `clone` (hosted engines): a voice-cloning model conditioned on a reference clip of the speaker.
 *   The clip's digest and length are recorded; `voiceId` when the server keeps the voice itself
 *   (an OpenAI-compatible server's `/v1/audio/voices`), otherwise the clip is sent with every
 *   request (Replicate) and the caller passes its path to `synthesize`.
 *
 * Refinements over the brief's sketch: `createVoice` takes `referenceOutPath` (where a cloning
 * engine writes the clip it clones, for the caller to store beside the voice record) and
 * `synthesize` takes `referencePath` back; `rate` is a multiplier on the voice's own rate (fit.ts
 * raises it when a segment cannot fit its slot) so a profile's matched rate is never lost.
 */

export const SYNTHESIS_ENGINES = ["local", "espeak-ng", "festival", "openai-compatible", "replicate"] as const;
export type SynthesisEngineName = (typeof SYNTHESIS_ENGINES)[number];

const MeasurementsSchema = z.object({
  f0MedianHz: z.number().nullable(),
  f0SpreadSemitones: z.number().nullable(),
  syllablesPerSec: z.number().nullable(),
  speechSec: z.number(),
  voicedSec: z.number(),
  analysedSec: z.number(),
}) satisfies z.ZodType<VoiceMeasurements>;

export const ProfileVoiceSchema = z.object({
  kind: z.literal("profile"),
  engine: z.enum(["espeak-ng", "festival"]),
  /** eSpeak NG `voice+variant` (`es-419+f3`) or a Festival voice (`cmu_us_slt_arctic_hts`). */
  baseVoice: z.string().min(1),
  /** The request's language code (`es`, `pt-BR`, `es-419`). */
  language: z.string().min(1),
  gender: z.enum(["female", "male"]),
  pitch: z.object({
    /** The median F0 the voice is set to speak at. */
    targetHz: z.number().positive(),
    /** The engine's setting: eSpeak's `-p` (0–99), or Festival's shift in semitones (rubberband, formants kept). */
    setting: z.number(),
    unit: z.enum(["espeak-p", "semitones"]),
  }),
  rate: z.object({
    /** 1 = the engine's natural rate in this language; what the speaker's syllable rate asked for, bounded. */
    multiplier: z.number().positive(),
    /** eSpeak's `-s` words per minute, or hts_engine's speed rate `-r`. */
    setting: z.number().positive(),
    unit: z.enum(["espeak-wpm", "hts-speed"]),
  }),
  /** The speaker as measured (null: no sample, the engine's defaults). */
  matchedTo: MeasurementsSchema.nullable(),
  /**
   * The engine's own voice as measured when the profile was made: its F0 in the target language,
   * its syllable rate in `rateLanguage` (the sample's language when the engine speaks it, so the
   * speaker is compared with the engine in the same language; else the target language).
   */
  calibration: z.object({ f0MedianHz: z.number().nullable(), syllablesPerSec: z.number().nullable(), rateLanguage: z.string() }),
});

export const CloneVoiceSchema = z.object({
  kind: z.literal("clone"),
  engine: z.enum(["openai-compatible", "replicate"]),
  model: z.string().min(1),
  language: z.string().min(1),
  reference: z.object({
    /** sha256 of the reference clip's bytes (the WAV `createVoice` wrote). */
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    durationSec: z.number().positive(),
    /** The server's id for the voice, when it keeps the voice (then the clip is not sent again). */
    voiceId: z.string().min(1).optional(),
  }),
  matchedTo: MeasurementsSchema.nullable(),
});

export const VoiceSpecSchema = z.discriminatedUnion("kind", [ProfileVoiceSchema, CloneVoiceSchema]);
export type ProfileVoiceSpec = z.infer<typeof ProfileVoiceSchema>;
export type CloneVoiceSpec = z.infer<typeof CloneVoiceSchema>;
export type VoiceSpec = z.infer<typeof VoiceSpecSchema>;

export interface CreateVoiceRequest {
  /** Audio of the speaker (any format ffmpeg reads; usually the job's extracted WAV). */
  sampleWavPath: string;
  /** The language the voice will speak (the dub's target). */
  language: string;
  /** The language spoken in the sample, when known: the speaker's rate is then judged against the engine's in it. */
  sampleLanguage?: string;
  /** The speaker's turns in the sample (source time); absent: the whole file. */
  ranges?: readonly TimeRange[];
  /** Where a cloning engine writes the reference clip (mono WAV, ≤ 10 s of the speaker); profile engines write nothing. */
  referenceOutPath: string;
  signal: AbortSignal;
}

export interface SynthesizeRequest {
  text: string;
  language: string;
  voice: VoiceSpec;
  /** Speaking rate on top of the voice's own (1 = as the voice speaks; fit.ts goes up to its bound). */
  rate?: number;
  /** The reference clip of a clone voice that is sent with each request (its digest must match). */
  referencePath?: string;
  /** A mono WAV is written here (the engine's own sample rate). */
  outPath: string;
  signal: AbortSignal;
}

export interface Synthesized {
  path: string;
  durationSec: number;
}

export interface SynthesisEngine {
  readonly engine: SynthesisEngineName;
  /** What speaks, as recorded on the dubbing record: `espeak-ng 1.51`, `festival hts`, the hosted model id. */
  readonly model: string;
  /** Request language codes this engine speaks (base codes and the regional forms it has voices for). */
  languages(): readonly string[];
  supportsLanguage(language: string): boolean;
  createVoice(req: CreateVoiceRequest): Promise<VoiceSpec>;
  synthesize(req: SynthesizeRequest): Promise<Synthesized>;
}

export type { EngineEnv } from "../config";

export interface SynthesisFactoryOptions {
  /** Hosted model id (the platform's choice); null/absent: the engine's default. */
  model?: string | null;
  /** Upper bound for one HTTP call; the handler passes something shorter than the lease. */
  requestTimeoutMs?: number;
}
