import { wordRecall, type StoredConsents } from "../../../contracts/voice-consent";
import type { VoiceConsentResult, VoiceConsentStored } from "../../../contracts/services/voice-consent";
import type { VoiceComparison } from "../../engines/diarization/voice-match";

/**
 * The consent's decision from what the runner measured, against the thresholds the Worker stored
 * at create (contracts/voice-consent.ts): granted only when the phrase's challenge words were heard
 * (recall at least `minWordRecall`) and the voice is the subject's (distance at most
 * `maxVoiceDistance`); refused otherwise, saying which failed and by how much.
 */
export function decide(
  input: VoiceConsentStored,
  heard: string,
  voice: VoiceComparison,
  speechEngine: { engine: string; model: string },
): VoiceConsentResult {
  const { minWordRecall, maxVoiceDistance } = input.thresholds;
  const words = wordRecall(input.phrase.words, heard);
  const recall = Math.round(words.recall * 1000) / 1000;
  const distance = voice.distance === null ? null : Math.round(voice.distance * 1000) / 1000;
  const wordsOk = words.recall >= minWordRecall;
  const voiceOk = distance !== null && distance <= maxVoiceDistance;
  const said = `words: ${input.phrase.words.length - words.missing.length} of ${input.phrase.words.length} challenge words heard (recall ${recall}, needs ≥ ${minWordRecall})${words.missing.length ? `, missing ${words.missing.join(", ")}` : ""}; heard "${heard}"`;
  const who =
    distance === null
      ? `voice: no speech to compare (${voice.recordingWindows} recording windows, ${voice.subjectWindows} of the subject)`
      : `voice: distance ${distance} from the subject's (needs ≤ ${maxVoiceDistance}; median pitch ${voice.recordingF0Hz ?? "?"} Hz vs ${voice.subjectF0Hz ?? "?"} Hz)`;
  return {
    consentId: input.consentId,
    decision: wordsOk && voiceOk ? "granted" : "refused",
    reason: `${wordsOk ? "phrase heard" : "phrase not heard"} and ${voiceOk ? "the subject's voice" : "not the subject's voice"}: ${said}; ${who}`,
    check: {
      heard,
      wordRecall: recall,
      missingWords: words.missing,
      voiceDistance: distance,
      recordingF0Hz: voice.recordingF0Hz,
      subjectF0Hz: voice.subjectF0Hz,
      speechEngine,
      thresholds: { minWordRecall, maxVoiceDistance },
    },
  };
}

/** Whether a speaker (or `sample`) may be cloned under the stored consents: the Worker decided at create. */
export const mayClone = (consents: StoredConsents, name: string): boolean => !consents.required || Object.hasOwn(consents.granted, name);
