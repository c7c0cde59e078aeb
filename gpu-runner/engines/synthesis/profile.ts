import { randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { baseLanguage } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import { ToolError } from "../../media/spawn";
import type { CreateVoiceRequest, ProfileVoiceSpec, SynthesisEngine, VoiceSpec } from "./interface";
import { measureVoice, type VoiceMeasurements } from "./voice-analysis";
import { scratchRoot } from "../../task-scope";

/**
 * What the local engines (eSpeak NG, Festival) share: a voice profile is a stock voice whose
 * pitch and rate are set from the speaker's measurements, relative to the engine's own voice as
 * measured in the same language (a calibration utterance, synthesised and measured once per
 * voice and language per process: ~0.3 s with eSpeak NG, ~1 s with Festival).
 *
 * Rate: the speaker's syllable rate over the engine's, bounded to RATE_BOUNDS (beyond them
 * synthetic speech stops being intelligible, and fit.ts has its own bounds for fitting slots).
 * Syllable rates differ between languages (Spanish packs more syllables into a second than
 * English: eSpeak NG measures 6.5 against 4.7 at the same setting), so the engine is measured in
 * the sample's language when the request names it and the engine speaks it: the multiplier then
 * says how much faster or slower than the engine's norm the speaker talks, and carries that into
 * the target language. Without it, the target language's rate is the reference (an approximation;
 * the per-segment fit corrects what matters, the slot).
 */

/**
 * What an engine says to have its own rate and pitch measured: everyday sentences where we have
 * them (syllable rate depends on the text: short function words speed it up, numbers slow it
 * down), else numbers, which every engine reads in the language's own words.
 */
const CALIBRATION_TEXTS: Record<string, string> = {
  en: "Every morning she walks to the market and buys fresh bread for the family. Then they sit in the kitchen and talk about the day.",
  es: "Cada mañana camina hasta el mercado y compra pan fresco para la familia. Después se sientan en la cocina y hablan del día.",
  ca: "Cada matí camina fins al mercat i compra pa fresc per a la família. Després seuen a la cuina i parlen del dia.",
  fr: "Chaque matin, elle marche jusqu'au marché et achète du pain frais pour la famille. Ensuite, ils parlent de la journée.",
  de: "Jeden Morgen geht sie zum Markt und kauft frisches Brot für die Familie. Dann sitzen sie in der Küche und reden über den Tag.",
  it: "Ogni mattina cammina fino al mercato e compra pane fresco per la famiglia. Poi si siedono in cucina e parlano della giornata.",
  pt: "Todas as manhãs ela caminha até o mercado e compra pão fresco para a família. Depois sentam na cozinha e falam do dia.",
};
const CALIBRATION_NUMBERS = "1987, 24, 365, 48, 2019, 73, 11, 90, 417, 2023.";

export function calibrationText(language: string): string {
  return CALIBRATION_TEXTS[baseLanguage(language)] ?? CALIBRATION_NUMBERS;
}
export const RATE_BOUNDS = { min: 0.7, max: 1.4 } as const;
/** Below this median F0 a speaker gets a male variant (between typical male ~120 Hz and female ~210 Hz medians). */
export const MALE_BELOW_HZ = 160;

export interface Calibration {
  f0MedianHz: number | null;
  syllablesPerSec: number | null;
}

export function clamp(v: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, v));
}

export function rateMultiplier(speaker: VoiceMeasurements | null, engine: Calibration): number {
  if (!speaker?.syllablesPerSec || !engine.syllablesPerSec) return 1;
  return Math.round(clamp(speaker.syllablesPerSec / engine.syllablesPerSec, RATE_BOUNDS.min, RATE_BOUNDS.max) * 100) / 100;
}

/** Measures the speaker in a create-voice request; a sample without speech still makes a (default) profile. */
export async function measureSpeaker(req: CreateVoiceRequest, scratchDir: string): Promise<VoiceMeasurements> {
  return measureVoice(req.sampleWavPath, { ...(req.ranges ? { ranges: req.ranges } : {}), signal: req.signal, scratchDir });
}

/** `createVoice` of a profile engine: the speaker measured in a scratch directory, then the engine's own profile. */
export async function createProfileVoice(engine: ProfileEngine, req: CreateVoiceRequest): Promise<VoiceSpec> {
  const scratch = await mkdtemp(path.join(scratchRoot(), `${engine.engine}-voice-`));
  try {
    return await engine.profile(await measureSpeaker(req, scratch), req.language, req.signal, req.sampleLanguage);
  } catch (err) {
    throw toolFailure(engine, err);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** Caches calibrations per key, sharing one in-flight measurement between concurrent callers. */
export class CalibrationCache {
  private readonly entries = new Map<string, Promise<Calibration>>();

  get(key: string, measure: () => Promise<Calibration>): Promise<Calibration> {
    let p = this.entries.get(key);
    if (!p) {
      p = measure();
      // A failed or cancelled calibration is not remembered.
      p.catch(() => this.entries.delete(key));
      this.entries.set(key, p);
    }
    return p;
  }
}

/** A local engine that turns measurements into its own profile (local.ts measures once and picks the engine). */
export interface ProfileEngine extends SynthesisEngine {
  readonly engine: "espeak-ng" | "festival";
  profile(measured: VoiceMeasurements | null, language: string, signal: AbortSignal, sampleLanguage?: string): Promise<ProfileVoiceSpec>;
}

/** The profile a voice spec must be for this engine to speak it. */
export function ownProfile(voice: VoiceSpec, engine: ProfileEngine): ProfileVoiceSpec {
  if (voice.kind !== "profile" || voice.engine !== engine.engine)
    throw new StepFailure(
      "processing_failed",
      `${engine.engine} (${engine.model}): cannot speak a ${voice.kind} voice made by ${voice.engine}`,
      false,
    );
  return voice;
}

/** A tool that failed (or was not found) as the step failure every engine reports: retryable, naming engine and model. */
export function toolFailure(engine: SynthesisEngine, err: unknown): unknown {
  if (err instanceof StepFailure) return err;
  if (err instanceof ToolError) return new StepFailure("processing_failed", `${engine.engine} (${engine.model}): ${err.message}`, true);
  const e = err as NodeJS.ErrnoException;
  if (e?.code === "ENOENT")
    return new StepFailure("engine_unavailable", `${engine.engine} (${engine.model}): ${e.path ?? "tool"} is not installed`, true);
  return err;
}

/** Writes `text` to a scratch file beside `outPath`, runs `use`, and removes the file. */
export async function withTextFile<T>(outPath: string, text: string | Buffer, use: (file: string) => Promise<T>): Promise<T> {
  const file = path.join(path.dirname(outPath), `.tts-${randomUUID()}.txt`);
  await writeFile(file, text);
  try {
    return await use(file);
  } finally {
    await rm(file, { force: true });
  }
}

/** Text as a synthesiser should read it: one line, no control characters. */
export function cleanText(text: string): string {
  return text
    .normalize("NFC")
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
