import { HOSTED_SPEECH_ENGINES, SPEECH_SYNTHESIS_DEFAULT_MODELS, type HostedSpeechEngine } from "../../../contracts/model-refs";
import type { Settings } from "../../../contracts/settings";
import { validationError } from "../../errors";

/**
 * Which speech model a dubbing runs. A request may name one (`options.tts.modelId`), but the model
 * runs on the operator's account with the operator's token, so only the ones the operator offers
 * are accepted: the configured model (`dubbing.speechModel`, else the engine's own) and those listed
 * for the engine in `modelChoices.dubbingSpeech`. The local engines have no models to choose.
 */

const isHosted = (engine: string): engine is HostedSpeechEngine => (HOSTED_SPEECH_ENGINES as readonly string[]).includes(engine);

export function allowedSpeechModels(settings: Settings): string[] {
  const engine = settings.dubbing.speechEngine;
  if (!isHosted(engine)) return [];
  const configured = settings.dubbing.speechModel ?? SPEECH_SYNTHESIS_DEFAULT_MODELS[engine];
  return [...new Set([configured, ...settings.modelChoices.dubbingSpeech[engine]])];
}

/** The model the job stores for its runner: the request's choice if allowed (else 422 `modelNotAllowed`), or the configured one. */
export function chooseSpeechModel(settings: Settings, requested: string | undefined): string | null {
  if (requested === undefined) return settings.dubbing.speechModel;
  const allowed = allowedSpeechModels(settings);
  if (allowed.includes(requested)) return requested;
  const engine = settings.dubbing.speechEngine;
  const message =
    allowed.length === 0
      ? `tts.modelId is not accepted: the ${engine} speech engine has no models to choose from; leave it out`
      : `tts.modelId ${JSON.stringify(requested)} is not offered by the ${engine} speech engine on this deployment; allowed: ${allowed.join(", ")}`;
  throw validationError(message, [{ path: "input.options.tts.modelId", issue: "modelNotAllowed" }]);
}
