import { z } from "zod";
import { RecordingConsentRequestSchema } from "../voice-consent";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK } from "./types";

/**
 * Voice consent: the check of a recorded consent (`vcn_`, kind `recording`) on the runner. The
 * recording is transcribed by the speech engine and its words compared with the issued phrase, and
 * its voice compared with the subject's (the speaker's turns in the transcript's source media, or
 * the sample object) by the diarizer's features. Created by `POST /v1/voice-consents` (or
 * `POST /v1/jobs` with this service type, which also needs `voice_consent:write`); not charged.
 * The job completes with a decision either way: `granted` or `refused`, with what was measured.
 */
export const VoiceConsentInputSchema = RecordingConsentRequestSchema;

const SubjectMediaSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("speaker"),
    transcriptionId: z.string().min(1),
    speakerLabel: z.string().min(1),
    /** The transcript's source media in the job's bucket, and the speaker's turns in it (seconds). */
    sourceKey: z.string().min(1),
    turns: z.array(z.object({ start: z.number().nonnegative(), end: z.number().nonnegative() })).min(1),
  }),
  z.object({ kind: z.literal("sample"), sourceKey: z.string().min(1) }),
]);
export type SubjectMedia = z.infer<typeof SubjectMediaSchema>;

/** The input as a voice_consent job stores it (worker/services/voice-consent/index.ts) and the runner reads it. */
export const VoiceConsentStoredSchema = z.object({
  consentId: z.string().min(1),
  /** The recording, in the bucket the subject's media is in (one storage grant per job). */
  connectionId: z.string().min(1),
  bucket: z.string().min(1),
  sourceKey: z.string().min(1),
  phrase: z.object({ phraseId: z.string(), text: z.string(), words: z.array(z.string()).min(1), speakerName: z.string().nullable() }),
  subject: SubjectMediaSchema,
  /** The language the phrase is in (the speech engine is asked for it). */
  language: z.string().min(2),
  thresholds: z.object({ minWordRecall: z.number(), maxVoiceDistance: z.number() }),
});
export type VoiceConsentStored = z.infer<typeof VoiceConsentStoredSchema>;

export const VoiceConsentResultSchema = z.object({
  consentId: z.string(),
  decision: z.enum(["granted", "refused"]),
  /** Why, in words: the words heard against the phrase, the voice distance against the threshold. */
  reason: z.string(),
  check: z.object({
    heard: z.string(),
    wordRecall: z.number(),
    missingWords: z.array(z.string()),
    voiceDistance: z.number().nullable(),
    recordingF0Hz: z.number().nullable(),
    subjectF0Hz: z.number().nullable(),
    speechEngine: z.object({ engine: z.string(), model: z.string() }),
    thresholds: z.object({ minWordRecall: z.number(), maxVoiceDistance: z.number() }),
  }),
});
export type VoiceConsentResult = z.infer<typeof VoiceConsentResultSchema>;

export const VOICE_CONSENT_STAGES = ["download", "extract_audio", "recognise_phrase", "compare_voice"] as const;

export const checkConsentStep = defineStep({
  name: "check",
  executor: "runner",
  handler: "voice_consent",
  stages: VOICE_CONSENT_STAGES,
  result: VoiceConsentResultSchema,
});

const FINAL_CODES = ["source_not_found", "source_access_denied", "unsupported_language"];

export const voiceConsentService = defineService({
  serviceType: "voice_consent",
  input: VoiceConsentInputSchema,
  stored: VoiceConsentStoredSchema,
  stages: VOICE_CONSENT_STAGES,
  steps: [checkConsentStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES],
  nonRetryableCodes: FINAL_CODES,
});
