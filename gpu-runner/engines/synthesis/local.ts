import { mkdtemp, rm } from "node:fs/promises";
import path from "node:path";
import { StepFailure } from "../../../contracts/step-failure";
import type { EspeakEngine } from "./espeak-ng";
import type { FestivalEngine } from "./festival";
import { PITCH_SHIFT_BOUND } from "./festival";
import type { CreateVoiceRequest, SynthesisEngine, SynthesizeRequest, Synthesized, VoiceSpec } from "./interface";
import { measureSpeaker, toolFailure } from "./profile";
import { semitones } from "./voice-analysis";
import { scratchRoot } from "../../task-scope";

/**
 * The local engine: Festival's HTS voices where Festival has the language (English, Catalan: more
 * natural than formant synthesis), eSpeak NG for every other language eSpeak NG has. One
 * exception: both Festival voices are female, so a speaker whose median F0 is more than
 * PITCH_SHIFT_BOUND semitones from the Festival voice's (a typical male speaker against slt's
 * ~180 Hz) gets eSpeak NG's male variant instead of a voice shifted beyond what sounds like speech.
 *
 * The speaker is measured once; each voice records the engine that made it, and `synthesize`
 * hands the segment to that engine.
 */
export class LocalSynthesisEngine implements SynthesisEngine {
  readonly engine = "local";
  readonly model: string;

  constructor(
    private readonly festival: FestivalEngine,
    private readonly espeak: EspeakEngine,
  ) {
    this.model = `${festival.model} + ${espeak.model}`;
  }

  languages(): readonly string[] {
    return [...new Set([...this.festival.languages(), ...this.espeak.languages()])].sort();
  }

  supportsLanguage(language: string): boolean {
    return this.festival.supportsLanguage(language) || this.espeak.supportsLanguage(language);
  }

  async createVoice(req: CreateVoiceRequest): Promise<VoiceSpec> {
    if (!this.supportsLanguage(req.language))
      throw new StepFailure("processing_failed", `local (${this.model}): has no voice for ${req.language}`, false);
    const scratch = await mkdtemp(path.join(scratchRoot(), "local-voice-"));
    try {
      const measured = await measureSpeaker(req, scratch);
      if (this.festival.supportsLanguage(req.language)) {
        const own = await this.festival.voiceF0(req.language, req.signal);
        const f0 = measured.f0MedianHz;
        const near = f0 === null || own === null || Math.abs(semitones(own, f0)) <= PITCH_SHIFT_BOUND;
        if (near || !this.espeak.supportsLanguage(req.language))
          return await this.festival.profile(measured, req.language, req.signal, req.sampleLanguage);
      }
      return await this.espeak.profile(measured, req.language, req.signal, req.sampleLanguage);
    } catch (err) {
      throw toolFailure(this, err);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }

  async synthesize(req: SynthesizeRequest): Promise<Synthesized> {
    const voice = req.voice;
    if (voice.kind === "profile" && voice.engine === "festival") return this.festival.synthesize(req);
    if (voice.kind === "profile" && voice.engine === "espeak-ng") return this.espeak.synthesize(req);
    throw new StepFailure("processing_failed", `local (${this.model}): cannot speak a ${voice.kind} voice made by ${voice.engine}`, false);
  }
}
