import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { StepFailure } from "../../../contracts/step-failure";
import { runToolOk } from "../../media/spawn";
import { wavInfo } from "./audio";
import { espeakVoiceFor, espeakVoiceList, type EspeakVoiceList } from "./espeak-voices";
import type { CreateVoiceRequest, ProfileVoiceSpec, SynthesizeRequest, Synthesized, VoiceSpec } from "./interface";
import {
  calibrationText,
  CalibrationCache,
  clamp,
  cleanText,
  MALE_BELOW_HZ,
  createProfileVoice,
  ownProfile,
  rateMultiplier,
  toolFailure,
  withTextFile,
  type Calibration,
  type ProfileEngine,
} from "./profile";
import { measureVoice, type VoiceMeasurements } from "./voice-analysis";
import { scratchRoot } from "../../task-scope";

/**
 * eSpeak NG (formant synthesis): every language the installed eSpeak NG has (espeak-voices.ts),
 * 22.05 kHz mono WAV, ~0.01 s of CPU per second of speech.
 *
 * Profile: the variant is `m3` for a speaker whose median F0 is under 160 Hz and `f3` otherwise
 * (no F0 measured: `f3`); `-p` (0–99) is set so the variant speaks at the speaker's median F0,
 * through PITCH_TABLE, which maps `-p` to median F0 for both variants (measured with
 * voice-analysis.ts on English and Spanish sentences, which agree within 3%: the variant's pitch
 * range does not depend on the language); `-s` (words per minute, default 175) is 175 × the rate
 * multiplier (profile.ts), against the engine's own rate measured in the language.
 */
export interface EspeakConfig {
  /** The espeak-ng binary (ESPEAK_NG_BIN, default `espeak-ng`). */
  bin: string;
}

const DEFAULT_WPM = 175;
/** eSpeak NG accepts 80–450 words per minute. */
const WPM_BOUNDS = { min: 80, max: 450 } as const;

/** `-p` → median F0 (Hz) of the two variants profiles use, measured on eSpeak NG 1.51 (see above). */
export const PITCH_TABLE: Record<"m3" | "f3", readonly (readonly [p: number, hz: number])[]> = {
  m3: [
    [0, 69],
    [25, 86],
    [50, 105],
    [75, 134],
    [99, 173],
  ],
  f3: [
    [0, 152],
    [25, 178],
    [50, 213],
    [75, 265],
    [99, 337],
  ],
};

/** The `-p` at which `variant` speaks at `hz` (log-F0 interpolated in the table, clamped to 0–99). */
export function espeakPitchFor(variant: "m3" | "f3", hz: number): number {
  const table = PITCH_TABLE[variant];
  const target = Math.log(hz);
  if (target <= Math.log(table[0]![1])) return 0;
  for (let i = 1; i < table.length; i++) {
    const [p0, h0] = table[i - 1]!;
    const [p1, h1] = table[i]!;
    if (target <= Math.log(h1)) return Math.round(p0 + ((p1 - p0) * (target - Math.log(h0))) / (Math.log(h1) - Math.log(h0)));
  }
  return 99;
}

let versionCache: string | undefined;

function espeakVersion(bin: string): string {
  if (versionCache === undefined) {
    try {
      const out = execFileSync(bin, ["--version"], { encoding: "utf8", timeout: 10_000 });
      versionCache = /text-to-speech:\s*([\w.]+)/.exec(out)?.[1] ?? "unknown";
    } catch {
      versionCache = "unknown";
    }
  }
  return versionCache;
}

export class EspeakEngine implements ProfileEngine {
  readonly engine = "espeak-ng";
  readonly model: string;
  private readonly calibrations = new CalibrationCache();

  constructor(private readonly config: EspeakConfig) {
    this.model = `espeak-ng ${espeakVersion(config.bin)}`;
  }

  private get list(): EspeakVoiceList {
    try {
      return espeakVoiceList(this.config.bin);
    } catch (err) {
      throw new StepFailure("engine_unavailable", `espeak-ng (${this.model}): cannot list voices: ${(err as Error).message}`, true);
    }
  }

  languages(): readonly string[] {
    return this.list.languages;
  }

  supportsLanguage(language: string): boolean {
    return espeakVoiceFor(this.list, language) !== undefined;
  }

  async createVoice(req: CreateVoiceRequest): Promise<VoiceSpec> {
    this.voiceFor(req.language);
    return createProfileVoice(this, req);
  }

  async profile(
    measured: VoiceMeasurements | null,
    language: string,
    signal: AbortSignal,
    sampleLanguage?: string,
  ): Promise<ProfileVoiceSpec> {
    const voice = this.voiceFor(language);
    const f0 = measured?.f0MedianHz ?? null;
    const variant = f0 !== null && f0 < MALE_BELOW_HZ ? "m3" : "f3";
    const own = await this.calibrate(voice, variant, signal);
    const sampleVoice = sampleLanguage !== undefined ? espeakVoiceFor(this.list, sampleLanguage) : undefined;
    const rateReference = sampleVoice && sampleVoice !== voice ? await this.calibrate(sampleVoice, variant, signal) : own;
    const multiplier = rateMultiplier(measured, rateReference);
    const calibration = {
      f0MedianHz: own.f0MedianHz,
      syllablesPerSec: rateReference.syllablesPerSec,
      rateLanguage: sampleVoice ? sampleLanguage! : language,
    };
    const p = f0 !== null ? espeakPitchFor(variant, f0) : 50;
    return {
      kind: "profile",
      engine: "espeak-ng",
      baseVoice: `${voice}+${variant}`,
      language,
      gender: variant === "m3" ? "male" : "female",
      pitch: { targetHz: f0 ?? PITCH_TABLE[variant][2]![1], setting: p, unit: "espeak-p" },
      rate: { multiplier, setting: Math.round(clamp(DEFAULT_WPM * multiplier, WPM_BOUNDS.min, WPM_BOUNDS.max)), unit: "espeak-wpm" },
      matchedTo: measured,
      calibration,
    };
  }

  async synthesize(req: SynthesizeRequest): Promise<Synthesized> {
    const voice = ownProfile(req.voice, this);
    try {
      const wpm = Math.round(clamp(voice.rate.setting * (req.rate ?? 1), WPM_BOUNDS.min, WPM_BOUNDS.max));
      await this.speak(cleanText(req.text), voice.baseVoice, voice.pitch.setting, wpm, req.outPath, req.signal);
      return { path: req.outPath, durationSec: (await wavInfo(req.outPath)).durationSec };
    } catch (err) {
      throw toolFailure(this, err);
    }
  }

  private voiceFor(language: string): string {
    const voice = espeakVoiceFor(this.list, language);
    if (!voice) throw new StepFailure("processing_failed", `espeak-ng (${this.model}): has no voice for ${language}`, false);
    return voice;
  }

  private async speak(text: string, voice: string, pitch: number, wpm: number, outPath: string, signal: AbortSignal): Promise<void> {
    // -f: the text never passes as an argument, so a segment starting with "-" is not an option.
    await withTextFile(outPath, text, (file) =>
      runToolOk(this.config.bin, ["-v", voice, "-p", String(pitch), "-s", String(wpm), "-f", file, "-w", outPath], { signal }),
    );
  }

  private calibrate(voice: string, variant: string, signal: AbortSignal): Promise<Calibration> {
    return this.calibrations.get(`${voice}+${variant}`, async () => {
      const dir = await mkdtemp(path.join(scratchRoot(), "espeak-cal-"));
      try {
        const wav = path.join(dir, "calibration.wav");
        await this.speak(calibrationText(voice), `${voice}+${variant}`, 50, DEFAULT_WPM, wav, signal);
        const m = await measureVoice(wav, { signal, scratchDir: dir });
        return { f0MedianHz: m.f0MedianHz, syllablesPerSec: m.syllablesPerSec };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
}
