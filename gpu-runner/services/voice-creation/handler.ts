import type { createVoiceStep } from "../../../contracts/services/voice-creation";
import type { CreatedVoice } from "../../../contracts/voices";
import type { EngineEnv } from "../../engines/config";
import { parseStepSettings, round3 } from "../../step-input";
import { defaultSynthesisEngine, type MakeSynthesisEngine } from "../shared/synthesis";
import { consentAware } from "../shared/consent-voices";
import { noConsentReason } from "../../../contracts/voice-consent";
import { StepFailure } from "../../../contracts/step-failure";
import type { SynthesisEngine } from "../../engines/synthesis/interface";
import type { ServiceStepHandler } from "../types";
import {
  createVoice,
  download,
  extractSample,
  openVoiceCreationRun,
  referenceName,
  requireLanguage,
  sampleKey,
  uploadReference,
} from "./stages";

/**
 * Voice creation on the runner: the sample is downloaded, its sound extracted (16 kHz mono), and the
 * speech engine makes a voice of it: a local engine measures the speaker (median F0, syllable rate)
 * and matches a stock voice's pitch and rate to them (a voice profile, recorded as such); a hosted
 * cloning engine cuts a reference clip of the speaker, which is kept in the bucket beside the voice.
 */
export interface VoiceCreationDeps {
  createEngine?: MakeSynthesisEngine;
  /** The engine that makes voice profiles for a sample without consent when the chosen one clones (default: local). */
  createProfiles?: (env: EngineEnv) => SynthesisEngine;
  env?: EngineEnv;
}

export function createVoiceCreationHandler(deps: VoiceCreationDeps = {}): ServiceStepHandler<"voice_creation", typeof createVoiceStep> {
  const makeEngine = deps.createEngine ?? defaultSynthesisEngine;
  return async (ctx) => {
    const { report, task, input } = ctx;
    const { dubbing: settings, runner } = parseStepSettings(task.settings, ["dubbing", "runner"]);
    const run = await openVoiceCreationRun(ctx);
    const key = sampleKey(input);
    await report.stage(
      "download",
      () => download(run),
      (bytes) => ({ bytes, ...(key ? { sourceKey: key } : {}) }),
    );
    await report.stage(
      "extract_audio",
      () => extractSample(run, runner),
      (sample) => ({ sampleRate: 16000, durationSec: round3(sample.durationSec), format: sample.format }),
    );

    const env = deps.env ?? process.env;
    const engine = consentAware(makeEngine({ engine: settings.speechEngine, model: settings.speechModel }, env), env, deps.createProfiles);
    // The Worker decided at create: without the sample's granted consent, a voice profile (never a clone).
    const consent = input.voiceConsent.granted["sample"] ?? null;
    const profileOnly = input.voiceConsent.required && !consent;
    requireLanguage(engine, input.language);
    if (profileOnly && !engine.profileSupports(input.language))
      throw new StepFailure(
        "unsupported_language",
        `${noConsentReason("this sample")}, and the local engine has no voice profile for ${input.language}`,
        false,
      );
    const spec = await report.stage(
      "create_voice",
      () => createVoice(run, engine, profileOnly),
      (v) => ({
        kind: v.kind,
        engine: v.engine,
        language: v.language,
        speechSec: v.matchedTo?.speechSec ?? null,
        f0MedianHz: v.matchedTo?.f0MedianHz ?? null,
      }),
    );

    let referenceKey: string | null = null;
    const reference = referenceName(run, task.presigned?.outputUrls ?? null);
    if (spec.kind === "clone" && reference) {
      referenceKey = await report.stage(
        "upload_reference",
        () => uploadReference(run, reference),
        (k) => ({ referenceKey: k }),
      );
    } else {
      await report.skip(
        "upload_reference",
        spec.kind === "clone"
          ? "the request gave no outputUrls.reference: the reference clip is not kept"
          : "a voice profile keeps no reference clip",
      );
    }
    const created: CreatedVoice & { voiceId: string } = {
      voiceId: input.voiceId,
      spec,
      model: engine.modelFor(spec),
      referenceKey,
      sampleSpeechSec: round3(spec.matchedTo?.speechSec ?? 0),
      ...(profileOnly ? { reason: noConsentReason("this sample") } : {}),
      consent: spec.kind === "clone" ? consent : null,
    };
    return created;
  };
}

export const voiceCreationHandler = createVoiceCreationHandler();
