import { z } from "zod";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlSchema } from "../presigned";
import { LanguageCodeSchema, ObjectKeySchema } from "../request-fields";
import { CreatedVoiceSchema } from "../voices";
import { StoredConsentsSchema } from "../voice-consent";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";

/**
 * Voice creation: a `vce_` voice made from an audio (or video) sample in the customer's bucket, on
 * the runner (the sample is measured: F0, syllable rate; a cloning engine keeps a reference clip).
 * Created by `POST /v1/voices` (or `POST /v1/jobs` with this service type); charged to the public
 * `voice_creation` allowance. Voices a dubbing job creates for its speakers are not jobs of their
 * own and are not charged.
 */
const voice = {
  name: z.string().trim().min(1).max(100),
  /** The language the voice will speak. */
  language: LanguageCodeSchema,
  /** Part of the sample to use (seconds); default: all of it. */
  startSec: z.number().nonnegative().optional(),
  endSec: z.number().positive().optional(),
};

const VoiceCreationBucketInputSchema = z.strictObject({
  ...voice,
  sourceType: z.literal("s3_direct").optional(),
  connectionId: z.string().min(1).max(128),
  bucket: z.string().min(1).max(255),
  sourceKey: ObjectKeySchema,
});

/**
 * `s3_presigned` (contracts/presigned.ts): the sample's GET URL, and optionally a PUT URL for the
 * reference clip a cloning engine cuts (without it the clip is not kept; a profile keeps none).
 */
const VoiceCreationPresignedInputSchema = z.strictObject({
  ...voice,
  sourceType: z.literal("s3_presigned"),
  sourceUrl: PresignedUrlSchema,
  outputUrls: z.strictObject({ reference: PresignedUrlSchema }).optional(),
});

export const VoiceCreationInputSchema = z.discriminatedUnion(
  "sourceType",
  [VoiceCreationBucketInputSchema, VoiceCreationPresignedInputSchema],
  { message: "sourceType must be s3_direct or s3_presigned" },
);

const voiceStored = {
  ...voice,
  /** The pending `vce_` record create made; the runner's voice completes it. */
  voiceId: z.string().min(1),
  /**
   * The project's `voiceCloning.requireConsent` at create and, when it holds, the sample's granted
   * consent (key `sample`): without one the runner makes a voice profile, not a clone. Older jobs carry none.
   */
  voiceConsent: StoredConsentsSchema.default({ required: false, granted: {} }),
};

/** A bucket job: the sample in the connection's bucket; a cloning engine's reference clip goes under `outputPrefix`. */
const VoiceCreationBucketStoredSchema = z.object({
  ...voiceStored,
  sourceType: z.literal("s3_direct").optional(),
  connectionId: z.string(),
  bucket: z.string().min(1),
  sourceKey: z.string().min(1),
  outputPrefix: z.string().min(1),
});

/** An s3_presigned job: its URLs redacted (the full ones reach the runner in the task's presigned grant). */
const VoiceCreationPresignedStoredSchema = z.object({
  ...voiceStored,
  sourceType: z.literal("s3_presigned"),
  sourceUrl: z.string(),
  /** `reference` when the request gave a URL for the clip; empty otherwise. */
  outputUrls: z.record(z.string(), z.string()),
});

/** The input as a voice_creation job stores it (worker/services/voice-creation/index.ts) and the runner reads it. */
export const VoiceCreationStoredSchema = z.union([VoiceCreationBucketStoredSchema, VoiceCreationPresignedStoredSchema]);
export type VoiceCreationStored = z.infer<typeof VoiceCreationStoredSchema>;

export const VoiceCreationResultSchema = CreatedVoiceSchema.extend({ voiceId: z.string() });

export const VOICE_CREATION_STAGES = ["download", "extract_audio", "create_voice", "upload_reference"] as const;

export const createVoiceStep = defineStep({
  name: "create",
  executor: "runner",
  handler: "voice_creation",
  stages: VOICE_CREATION_STAGES,
  result: VoiceCreationResultSchema,
});

/** Less speech than this in the sample cannot be measured reliably (F0, syllable rate). */
export const MIN_VOICE_SAMPLE_SPEECH_SEC = 2;

const FINAL_CODES = [
  "source_not_found",
  "source_access_denied",
  "no_speech",
  "unsupported_language",
  OUTPUT_ACCESS_DENIED,
  PRESIGNED_URL_EXPIRED,
];

export const voiceCreationService = defineService({
  serviceType: "voice_creation",
  input: VoiceCreationInputSchema,
  stored: VoiceCreationStoredSchema,
  stages: VOICE_CREATION_STAGES,
  steps: [createVoiceStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
