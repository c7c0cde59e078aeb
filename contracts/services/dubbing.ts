import { z } from "zod";
import { DiarizationOptionsSchema, Id, LanguageCodeSchema, SOURCE_LAYERS } from "../request-fields";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlSchema } from "../presigned";
import { DIARIZATION_ENGINES, SEPARATION_ENGINES } from "../settings";
import { TRANSLATION_BACKENDS } from "../translation-languages";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";
import { TranslationPlanSchema } from "./translation";
import { RedactedAudioModeSchema, RedactedSpanSchema } from "../redaction";
import { GrantedConsentSchema, StoredConsentsSchema } from "../voice-consent";

/**
 * Dubbing: a transcript's translation spoken by a voice per speaker, mixed over the source's
 * background and muxed with the original picture. One runner step (`dub`): it translates first when
 * no `translationId` is given (saved as an ordinary `trl_` translation through `translation.save`),
 * diarizes the source audio, finds a voice for each speaker (an assignment, or one created from the
 * speaker's own audio through `voices.create`), speaks every translated segment into its slot,
 * mixes, renders and uploads the artifacts, and saves the `dub_` record through `dubbing.save`.
 */

const dub = {
  transcriptionId: Id("txt_"),
  targetLanguage: LanguageCodeSchema,
  sourceLanguage: LanguageCodeSchema.optional(),
  sourceLayer: z.enum(SOURCE_LAYERS).optional(),
  translationId: Id("trl_").optional(),
  options: z
    .strictObject({
      diarization: DiarizationOptionsSchema.optional(),
      voiceAssignments: z
        .record(z.string().regex(/^SPEAKER_\d{2}$/, { message: "keys must be diarization labels like SPEAKER_00" }), Id("vce_"))
        .optional(),
      voiceCloning: z.strictObject({ enabled: z.boolean().optional() }).optional(),
      tts: z.strictObject({ enabled: z.boolean().optional(), modelId: z.string().min(1).max(128).optional() }).optional(),
      /**
       * A completed dub of the same transcript into the same language (a bucket job's) whose audio is
       * reused: only segments whose text, slot or voice changed are spoken again (docs/api.md,
       * "Regenerating a dub"). Bucket jobs only: the runner reads the previous dub's artifacts.
       */
      regenerateFrom: Id("dub_").optional(),
    })
    .optional(),
};

/** The source video from the transcription's job, the artifacts under a prefix of its bucket (`sourceType` may be left out). */
const DubbingBucketInputSchema = z.strictObject({ ...dub, sourceType: z.literal("s3_direct").optional() });

/**
 * `s3_presigned` (contracts/presigned.ts): the video's GET URL and a PUT URL per artifact, plus
 * `srt` and `vtt` for the translation's subtitles when the job translates (no `translationId`;
 * checked at create). Voices the job makes for its speakers keep no reference clip.
 */
const DubbingPresignedInputSchema = z.strictObject({
  ...dub,
  sourceType: z.literal("s3_presigned"),
  sourceUrl: PresignedUrlSchema,
  // The names of DUBBING_ARTIFACTS (the save's artifacts), and the translation's subtitles.
  outputUrls: z.strictObject({
    rawAudio: PresignedUrlSchema,
    vocals: PresignedUrlSchema,
    background: PresignedUrlSchema,
    speech: PresignedUrlSchema,
    mix: PresignedUrlSchema,
    video: PresignedUrlSchema,
    srt: PresignedUrlSchema.optional(),
    vtt: PresignedUrlSchema.optional(),
  }),
});

export const DubbingInputSchema = z.discriminatedUnion("sourceType", [DubbingBucketInputSchema, DubbingPresignedInputSchema], {
  message: "sourceType must be s3_direct or s3_presigned",
});

/** The request's voice from `options.voiceAssignments`, as create found it (ready, the project's): the runner needs no lookup. */
const AssignedVoiceSchema = z.object({ voiceId: z.string(), spec: z.unknown(), referenceKey: z.string().nullable() });

/**
 * `options.regenerateFrom` as create resolved it: the previous dub, its artifacts' keys (in the
 * job's bucket), and each of its speakers' voices still ready in the project (as `assignedVoices`,
 * plus how the previous dub came by it). The per-segment record is read at run time through
 * `dubbing.previous` (a long dub's segments would swell the stored job).
 */
export const PreviousDubbingSchema = z.object({
  dubbingId: z.string().min(1),
  artifacts: z.object({ rawAudio: z.string().min(1), vocals: z.string().min(1), background: z.string().min(1), speech: z.string().min(1) }),
  voices: z.record(z.string(), AssignedVoiceSchema.extend({ voiceSource: z.enum(["assigned", "auto_created"]).nullable() })),
});
export type PreviousDubbing = z.infer<typeof PreviousDubbingSchema>;

const dubStored = {
  dubbingId: z.string().min(1),
  transcriptionId: z.string().min(1),
  /** The given translation, or the one this job makes first (`translation`). */
  translationId: z.string().min(1),
  sourceLanguage: z.string().min(1),
  targetLanguage: z.string().min(1),
  languageKey: z.string().min(1),
  sourceLayer: z.enum(SOURCE_LAYERS),
  /** The request's options with every default filled in. */
  options: z.object({
    diarization: z.object({ enabled: z.boolean(), minSpeakers: z.number().int().nullable(), maxSpeakers: z.number().int().nullable() }),
    voiceAssignments: z.record(z.string(), z.string()),
    voiceCloning: z.object({ enabled: z.boolean() }),
    tts: z.object({ enabled: z.boolean(), modelId: z.string().nullable() }),
    /** Only when the request gave it (older records' options stay as they were). */
    regenerateFrom: z.string().optional(),
  }),
  /** Set with `options.regenerateFrom`. */
  regenerateFrom: PreviousDubbingSchema.optional(),
  /** Set when the job translates first (no `translationId` in the request). */
  translation: TranslationPlanSchema.optional(),
  assignedVoices: z.record(z.string(), AssignedVoiceSchema),
  /**
   * The project's `voiceCloning.requireConsent` at create and, when it holds, the granted consents of
   * the transcript's speakers by label: the Worker decides, the runner clones only these speakers.
   * Jobs stored before consents existed carry none: they clone as they always did.
   */
  voiceConsent: StoredConsentsSchema.default({ required: false, granted: {} }),
  /** The engines as configured at create: a settings change does not alter a queued job. */
  engines: z.object({
    speech: z.string(),
    speechModel: z.string().nullable(),
    diarization: z.enum(DIARIZATION_ENGINES),
    diarizationModel: z.string().nullable(),
    // Jobs queued before separation became a choice (the Separation engines commit, cb432e9) carry
    // neither: they separate as they always did.
    separation: z.enum(SEPARATION_ENGINES).default("local-filters"),
    separationModel: z.string().nullable().default(null),
    mixLoudnessLufs: z.number(),
    duckDb: z.number(),
    /** What replaces a redacted transcript's words in the dub's audio (settings `dubbing.redactedAudio`); jobs queued before carry none. */
    redactedAudio: RedactedAudioModeSchema.default("silence"),
  }),
};

/** A bucket job: the transcription's source video, the artifacts under the dubbing's own prefix. */
const DubbingBucketStoredSchema = z.object({
  ...dubStored,
  sourceType: z.literal("s3_direct"),
  connectionId: z.string().min(1),
  bucket: z.string().min(1),
  sourceKey: z.string().min(1),
  resolvedOutputPrefix: z.string().min(1),
});

/** An s3_presigned job: its URLs redacted (the full ones reach the runner in the task's presigned grant). */
const DubbingPresignedStoredSchema = z.object({
  ...dubStored,
  sourceType: z.literal("s3_presigned"),
  /** Its path names the container the dub keeps. */
  sourceUrl: z.string(),
  outputUrls: z.record(z.string(), z.string()),
});

/** The input as a dubbing job stores it (worker/services/dubbing/resolve.ts) and the runner reads it. */
export const DubbingStoredSchema = z.discriminatedUnion("sourceType", [DubbingBucketStoredSchema, DubbingPresignedStoredSchema]);
export type DubbingStored = z.infer<typeof DubbingStoredSchema>;

/** Why a segment has the speech it has (or none). */
export const SEGMENT_SPEECH = ["spoken", "no_voice", "tts_disabled", "empty"] as const;

export const DubbedSegmentSchema = z.object({
  id: z.number().int().nonnegative(),
  speaker: z.string(),
  /** The source segment's slot: the dubbed speech must start here and end before the next one starts. */
  sourceStart: z.number().nonnegative(),
  sourceEnd: z.number().nonnegative(),
  /** The slot's end as used: the source end, or the next segment's start when that comes first. */
  slotEnd: z.number().nonnegative(),
  text: z.string(),
  speech: z.enum(SEGMENT_SPEECH),
  speechStart: z.number().nonnegative().nullable(),
  speechDurationSec: z.number().nonnegative().nullable(),
  /** Time ratio rubberband applied (1 = none; 0.8 = compressed to 80 % of its synthesised length). */
  stretch: z.number().positive().nullable(),
  /** Speaking-rate multiplier the TTS was asked for (above 1 when the text could not fit otherwise). */
  rate: z.number().positive().nullable(),
  /** `rate_raised`, `trimmed`, … as fit-to-slot reported them. */
  flags: z.array(z.string()),
});
export type DubbedSegment = z.infer<typeof DubbedSegmentSchema>;

export const DubbingSpeakerSchema = z.object({
  label: z.string(),
  /** `voiced`, or `needs_manual_assignment` when no voice could be had (its segments stay silent). */
  status: z.enum(["voiced", "needs_manual_assignment"]),
  voiceId: z.string().nullable(),
  /** How the voice came to be: the request's assignment, or created from this speaker's audio. */
  voiceSource: z.enum(["assigned", "auto_created"]).nullable(),
  voiceKind: z.enum(["profile", "clone"]).nullable(),
  speechSec: z.number().nonnegative(),
  segmentCount: z.number().int().nonnegative(),
  reason: z.string().optional(),
  /** The consent a cloned voice was made under (`voiceCloning.requireConsent`); null when none was used. Absent on older records. */
  consent: GrantedConsentSchema.nullable().optional(),
});

export const DUBBING_ARTIFACTS = ["rawAudio", "vocals", "background", "speech", "mix", "video"] as const;

/**
 * What a dub made with `options.regenerateFrom` took from the previous one. `mode: "partial"`: the
 * source audio, background and vocals (`separation`), who speaks when (`diarization`), the
 * speakers' voices and the speech of every segment in `segmentsReused` came from it, and only
 * `segmentsSynthesized` were spoken again; `"full"`: the previous dub could not be used (`reason`
 * says why) and everything was made anew.
 */
export const RegeneratedSchema = z.object({
  fromDubbingId: z.string(),
  mode: z.enum(["partial", "full"]),
  reason: z.string().optional(),
  reused: z.object({ sourceAudio: z.boolean(), separation: z.boolean(), diarization: z.boolean(), voices: z.array(z.string()) }),
  /** Segment ids spoken in this job, and those whose speech was kept sample for sample. */
  segmentsSynthesized: z.array(z.number().int().nonnegative()),
  segmentsReused: z.array(z.number().int().nonnegative()),
});
export type Regenerated = z.infer<typeof RegeneratedSchema>;

/** `dubbing.save`: the whole dubbing; saving it again writes the same row. */
/**
 * `dubbing.speakers`: where the transcript's redacted words were, and who speaks when by the source transcript's own speaker labels (its current
 * segments, consecutive ones of one speaker joined into a turn), so a dub keys its voices on the labels
 * the transcript shows and the names people gave them. Empty when the transcript was not diarized:
 * the dub then diarizes the audio itself.
 */
export const TranscriptSpeakersSchema = z.object({
  turns: z.array(z.object({ start: z.number(), end: z.number(), speaker: z.string() })),
  speakers: z.array(z.object({ label: z.string(), name: z.string().nullable() })),
  /** What diarized the transcript. */
  diarization: z.object({ engine: z.string(), model: z.string() }).nullable(),
  /**
   * Where the transcript's redacted words were (seconds of the source): the dub silences them in the
   * source audio before anything else reads it. Empty when it was not redacted (or from a Worker before redaction).
   */
  redactedSpans: z.array(RedactedSpanSchema).default([]),
});
export type TranscriptSpeakers = z.infer<typeof TranscriptSpeakersSchema>;

export const DubbingSaveSchema = z.object({
  translationId: z.string(),
  durationSec: z.number().nonnegative(),
  artifacts: z.record(z.enum(DUBBING_ARTIFACTS), z.string()),
  speakers: z.array(DubbingSpeakerSchema),
  segments: z.array(DubbedSegmentSchema),
  engines: z.object({
    translation: z.object({ backend: z.enum(TRANSLATION_BACKENDS), model: z.string() }),
    diarization: z.object({ engine: z.string(), model: z.string() }).nullable(),
    speech: z.object({ engine: z.string(), model: z.string() }).nullable(),
    /** `duckDb`: how far the background was lowered under speech (absent on records made before regeneration). */
    separation: z.object({ engine: z.string(), method: z.string(), duckDb: z.number().optional() }),
  }),
  regenerated: RegeneratedSchema.optional(),
  sync: z.object({
    /** Largest distance between a spoken segment's start and its source segment's start (s). */
    maxStartOffsetSec: z.number().nonnegative(),
    /** Largest overrun of a slot, as a fraction of the slot. */
    maxOverrunRatio: z.number().nonnegative(),
    /** The dubbed video's duration minus the source's (s). */
    durationDeltaSec: z.number(),
  }),
  /** `gainDb`: the gain the mix was brought to its target with (absent on records made before regeneration). */
  loudness: z.object({ integratedLufs: z.number().nullable(), truePeakDbtp: z.number().nullable(), gainDb: z.number().optional() }),
  timing: z.record(z.string(), z.number()),
});
export type DubbingSave = z.infer<typeof DubbingSaveSchema>;

/** The step's result: the spec's resultSummary for `dubbing`. */
export const DubbingResultSchema = z.object({
  dubbingId: z.string(),
  transcriptionId: z.string(),
  translationId: z.string(),
  sourceLanguage: z.string(),
  targetLanguage: z.string(),
  languageKey: z.string(),
  textPreview: z.string(),
  segmentCount: z.number().int().nonnegative(),
  durationSec: z.number().nonnegative(),
});
export type DubbingResult = z.infer<typeof DubbingResultSchema>;

export const DUBBING_STAGES = [
  "load_transcription",
  "translate",
  "download",
  "extract_audio",
  "separate_audio",
  "diarize",
  "assign_voices",
  "synthesize_speech",
  "mix_audio",
  "render_video",
  "upload_artifacts",
  "save_dubbing",
] as const;

/** `dubbing.previous`: the previous dub's saved record, or null when it is gone (the job then dubs in full). */
export const PreviousDubbingRecordSchema = z.object({ record: DubbingSaveSchema.nullable() });

export const dubStep = defineStep({
  name: "dub",
  executor: "runner",
  handler: "dubbing",
  stages: DUBBING_STAGES,
  result: DubbingResultSchema,
});

const FINAL_CODES = [
  OUTPUT_ACCESS_DENIED,
  PRESIGNED_URL_EXPIRED,
  "source_not_found",
  "source_access_denied",
  "no_segments",
  "unsupported_language_pair",
  "unsupported_language",
];

export const dubbingService = defineService({
  serviceType: "dubbing",
  input: DubbingInputSchema,
  stored: DubbingStoredSchema,
  stages: DUBBING_STAGES,
  steps: [dubStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
