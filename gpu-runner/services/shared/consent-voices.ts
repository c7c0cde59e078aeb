import type { EngineEnv } from "../../engines/config";
import { createSynthesisEngine } from "../../engines/synthesis/factory";
import type { CreateVoiceRequest, SynthesisEngine, SynthesizeRequest, Synthesized, VoiceSpec } from "../../engines/synthesis/interface";

/**
 * The dub's speech engine with a profile maker beside it, for `voiceCloning.requireConsent`: a
 * speaker without a granted consent gets a voice profile (a stock voice matched in pitch and rate,
 * engines/synthesis/interface.ts), never a clone. When the chosen engine makes profiles itself
 * (local, eSpeak NG, Festival) it makes both; when it clones (a hosted engine), the local engine
 * makes and speaks the profiles, and each segment goes to the engine its voice was made by.
 */
const PROFILE_ENGINES: ReadonlySet<string> = new Set(["local", "espeak-ng", "festival"]);

export interface ConsentAwareSynthesis extends SynthesisEngine {
  /** A voice profile of the speaker, whatever the chosen engine makes. */
  createProfile(req: CreateVoiceRequest): Promise<VoiceSpec>;
  /** The model that speaks a voice, as records name it: the profile maker's for a profile it made. */
  modelFor(voice: VoiceSpec): string;
  /** Whether the profile maker has a voice for the language. */
  profileSupports(language: string): boolean;
}

export function consentAware(
  chosen: SynthesisEngine,
  env: EngineEnv,
  makeLocal: (env: EngineEnv) => SynthesisEngine = (e) => createSynthesisEngine("local", e),
): ConsentAwareSynthesis {
  let local: SynthesisEngine | null = PROFILE_ENGINES.has(chosen.engine) ? chosen : null;
  // Made on first need: a hosted dub whose speakers all consented never starts the local engine.
  const profiles = () => (local ??= makeLocal(env));
  return {
    engine: chosen.engine,
    model: chosen.model,
    profileSupports: (l) => profiles().supportsLanguage(l),
    modelFor: (voice) => (voice.kind === "profile" && !PROFILE_ENGINES.has(chosen.engine) ? profiles().model : chosen.model),
    languages: () => chosen.languages(),
    supportsLanguage: (l) => chosen.supportsLanguage(l),
    createVoice: (req) => chosen.createVoice(req),
    createProfile: (req) => profiles().createVoice(req),
    synthesize: (req: SynthesizeRequest): Promise<Synthesized> =>
      req.voice.kind === "profile" && !PROFILE_ENGINES.has(chosen.engine) ? profiles().synthesize(req) : chosen.synthesize(req),
  };
}
