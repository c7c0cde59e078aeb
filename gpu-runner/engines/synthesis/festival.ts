import { mkdtemp, rename, rm } from "node:fs/promises";
import path from "node:path";
import { baseLanguage } from "../../../contracts/translation-languages";
import { StepFailure } from "../../../contracts/step-failure";
import { runToolOk } from "../../media/spawn";
import { wavInfo } from "./audio";
import type { CreateVoiceRequest, ProfileVoiceSpec, SynthesizeRequest, Synthesized, VoiceSpec } from "./interface";
import {
  calibrationText,
  CalibrationCache,
  clamp,
  cleanText,
  createProfileVoice,
  ownProfile,
  rateMultiplier,
  toolFailure,
  withTextFile,
  type Calibration,
  type ProfileEngine,
} from "./profile";
import { measureVoice, semitones, type VoiceMeasurements } from "./voice-analysis";
import { scratchRoot } from "../../task-scope";

/**
 * Festival 2.5 with the HTS voices Debian ships: `cmu_us_slt_arctic_hts` (festvox-us-slt-hts,
 * English, female, 32 kHz) and `upc_ca_ona_hts` (festvox-ca-ona-hts, Catalan, female, 16 kHz).
 * Bookworm has no other HTS voice (no Spanish one). Text goes in as a file: Latin-1 for the Catalan
 * voice (its lexicon is ISO-8859-15; UTF-8 input makes it spell out the bytes: measured 5.8 s
 * instead of 3.9 s for one sentence), and ASCII-folded for the English one.
 *
 * Rate: `Duration_Stretch` does nothing to these voices (HTS takes durations from its own models;
 * measured: identical output), so the rate goes through hts_engine's speed rate, the `-r` entry
 * of `hts_engine_params` (>1 faster), which Festival's hts_engine module passes on.
 *
 * Pitch: the module parses no pitch option (only `-m`, `-r` and its label/output options; `-fm`,
 * hts_engine's half-tone shift, is ignored: identical output), so a profile's pitch is applied
 * after synthesis by rubberband's pitch shift with formants preserved (`-p <semitones> -F`, R3
 * engine), bounded to ±PITCH_SHIFT_BOUND semitones; shifts under half a semitone are not made.
 * local.ts leaves Festival for eSpeak NG when a speaker is further from the voice than that.
 */
export interface FestivalConfig {
  /** FESTIVAL_TEXT2WAVE, default `text2wave`. */
  text2wave: string;
  /** RUBBERBAND_BIN, default `rubberband`. */
  rubberband: string;
}

/** Beyond ±8 semitones a formant-preserving shift of a female HTS voice stops sounding like speech. */
export const PITCH_SHIFT_BOUND = 8;
const HTS_SPEED_BOUNDS = { min: 0.5, max: 2 } as const;

interface FestivalVoice {
  name: string;
  gender: "female" | "male";
  encode(text: string): Buffer;
}

const FESTIVAL_VOICES: Record<string, FestivalVoice> = {
  en: { name: "cmu_us_slt_arctic_hts", gender: "female", encode: (t) => Buffer.from(foldTo(t, 0x7f), "latin1") },
  ca: { name: "upc_ca_ona_hts", gender: "female", encode: (t) => Buffer.from(foldTo(t, 0xff), "latin1") },
};

/** Typographic punctuation to ASCII, then letters outside the range stripped of their accents, then dropped. */
function foldTo(text: string, max: number): string {
  const ascii = text
    .replace(/[‘’‚‛]/g, "'")
    .replace(/[“”„‟«»]/g, '"')
    .replace(/[–—]/g, ", ")
    .replace(/…/g, "...");
  let out = "";
  for (const ch of ascii) {
    if (ch.codePointAt(0)! <= max) out += ch;
    else out += [...ch.normalize("NFD")].filter((c) => c.codePointAt(0)! <= max).join("") || " ";
  }
  return out;
}

export function festivalVoiceFor(language: string): FestivalVoice | undefined {
  return FESTIVAL_VOICES[baseLanguage(language)];
}

export class FestivalEngine implements ProfileEngine {
  readonly engine = "festival";
  readonly model = "festival 2.5 hts";
  private readonly calibrations = new CalibrationCache();

  constructor(private readonly config: FestivalConfig) {}

  languages(): readonly string[] {
    return ["ca", "en"];
  }

  supportsLanguage(language: string): boolean {
    return festivalVoiceFor(language) !== undefined;
  }

  async createVoice(req: CreateVoiceRequest): Promise<VoiceSpec> {
    this.voiceFor(req.language);
    return createProfileVoice(this, req);
  }

  /** The voice's own median F0 in a language (calibrated once), for local.ts to judge the distance to a speaker. */
  async voiceF0(language: string, signal: AbortSignal): Promise<number | null> {
    return (await this.calibrate(this.voiceFor(language), language, signal)).f0MedianHz;
  }

  async profile(
    measured: VoiceMeasurements | null,
    language: string,
    signal: AbortSignal,
    sampleLanguage?: string,
  ): Promise<ProfileVoiceSpec> {
    const voice = this.voiceFor(language);
    const ownCalibration = await this.calibrate(voice, language, signal);
    const sampleVoice = sampleLanguage !== undefined ? festivalVoiceFor(sampleLanguage) : undefined;
    const rateReference =
      sampleVoice && sampleVoice !== voice ? await this.calibrate(sampleVoice, sampleLanguage!, signal) : ownCalibration;
    const calibration = {
      f0MedianHz: ownCalibration.f0MedianHz,
      syllablesPerSec: rateReference.syllablesPerSec,
      rateLanguage: sampleVoice ? sampleLanguage! : language,
    };
    const f0 = measured?.f0MedianHz ?? null;
    const own = calibration.f0MedianHz;
    const wanted = f0 !== null && own !== null ? clamp(semitones(own, f0), -PITCH_SHIFT_BOUND, PITCH_SHIFT_BOUND) : 0;
    const shift = Math.abs(wanted) < 0.5 ? 0 : Math.round(wanted * 2) / 2;
    const multiplier = rateMultiplier(measured, rateReference);
    return {
      kind: "profile",
      engine: "festival",
      baseVoice: voice.name,
      language,
      gender: voice.gender,
      // No calibrated F0 (never seen with these voices): the target is recorded as the speaker's, unshifted.
      pitch: { targetHz: own !== null ? Math.round(own * 2 ** (shift / 12) * 10) / 10 : (f0 ?? 200), setting: shift, unit: "semitones" },
      rate: { multiplier, setting: multiplier, unit: "hts-speed" },
      matchedTo: measured,
      calibration,
    };
  }

  async synthesize(req: SynthesizeRequest): Promise<Synthesized> {
    const profile = ownProfile(req.voice, this);
    const voice = this.voiceFor(profile.language);
    try {
      const speed = clamp(profile.rate.setting * (req.rate ?? 1), HTS_SPEED_BOUNDS.min, HTS_SPEED_BOUNDS.max);
      await this.speak(voice, cleanText(req.text), speed, req.outPath, req.signal);
      if (profile.pitch.setting !== 0) await this.shiftPitch(req.outPath, profile.pitch.setting, req.signal);
      return { path: req.outPath, durationSec: (await wavInfo(req.outPath)).durationSec };
    } catch (err) {
      throw toolFailure(this, err);
    }
  }

  private voiceFor(language: string): FestivalVoice {
    const voice = festivalVoiceFor(language);
    if (!voice) throw new StepFailure("processing_failed", `festival (${this.model}): has no voice for ${language}`, false);
    return voice;
  }

  private async speak(voice: FestivalVoice, text: string, speed: number, outPath: string, signal: AbortSignal): Promise<void> {
    const params = `(set! hts_engine_params (append hts_engine_params (list (list "-r" ${speed.toFixed(3)}))))`;
    await withTextFile(outPath, voice.encode(text), (file) =>
      runToolOk(this.config.text2wave, ["-eval", `(voice_${voice.name})`, "-eval", params, file, "-o", outPath], { signal }),
    );
  }

  private async shiftPitch(wav: string, shift: number, signal: AbortSignal): Promise<void> {
    const shifted = `${wav}.pitch.wav`;
    await runToolOk(this.config.rubberband, ["-q", "-3", "-F", "-p", String(shift), wav, shifted], { signal });
    await rename(shifted, wav);
  }

  private calibrate(voice: FestivalVoice, language: string, signal: AbortSignal): Promise<Calibration> {
    return this.calibrations.get(voice.name, async () => {
      const dir = await mkdtemp(path.join(scratchRoot(), "festival-cal-"));
      try {
        const wav = path.join(dir, "calibration.wav");
        await this.speak(voice, calibrationText(language), 1, wav, signal);
        const m = await measureVoice(wav, { signal, scratchDir: dir });
        return { f0MedianHz: m.f0MedianHz, syllablesPerSec: m.syllablesPerSec };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
}
