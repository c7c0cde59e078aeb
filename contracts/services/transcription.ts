import { z } from "zod";
import { OUTPUT_ACCESS_DENIED, PRESIGNED_URL_EXPIRED, PresignedUrlSchema } from "../presigned";
import {
  DiarizationOptionsSchema,
  LanguageCodeSchema,
  ObjectKeySchema,
  OutputPrefixSchema,
  storedBucketSource,
  VocabularySchema,
} from "../request-fields";
import { TranscriptionResultSchema } from "../transcript";
import { PiiEntityTypeSchema, RedactionOptionsSchema } from "../redaction";

/** A transcription job's redaction as create resolved it. */
export const StoredRedactionSchema = z.object({
  entities: z.array(PiiEntityTypeSchema).min(1),
  reason: z.enum(["job", "policy"]),
  keepUnredacted: z.boolean(),
});
export type StoredRedaction = z.infer<typeof StoredRedactionSchema>;
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";

/**
 * Transcription: a media file in the customer's bucket becomes a transcript record and four output
 * files (full text, segments JSON, SRT, VTT). One runner step does all the heavy work.
 */

/**
 * The spec's `options.language`, and this service's extensions (docs/api.md): `diarization` (speaker
 * labels; on by default), `vocabulary` (terms passed to the recogniser) and `subtitleSpeakers`
 * (speaker names in the SRT, VTT and text files; on by default when the transcript has speakers).
 */
const options = z
  .strictObject({
    /**
     * One language code (a hint: recognise in this language), or an extension: a list of the
     * languages the recording may be in (1–10), for engines that detect the language; each part of
     * the recording is then recognised in one of them (a code-switching policy, docs/api.md).
     */
    language: z.union([LanguageCodeSchema, z.array(LanguageCodeSchema).min(1).max(10, { message: "at most 10 languages" })]).optional(),
    diarization: DiarizationOptionsSchema.optional(),
    vocabulary: VocabularySchema.optional(),
    subtitleSpeakers: z.boolean().optional(),
    /** Personal data replaced by its type in the transcript and its files (docs/api.md "Your data"). */
    redaction: RedactionOptionsSchema.optional(),
  })
  .optional();

const TranscriptionBucketInputSchema = z.strictObject({
  sourceType: z.literal("s3_direct"),
  connectionId: z.string().min(1).max(128),
  bucket: z.string().min(1).max(255),
  sourceKey: ObjectKeySchema,
  outputPrefix: OutputPrefixSchema.optional(),
  options,
});

/** The four files, by the names of `resolvedOutputKeys`: one presigned PUT URL each. */
export const TRANSCRIPTION_OUTPUT_NAMES = ["fullText", "segments", "srt", "vtt"] as const;

/** `s3_presigned`: a GET URL for the source and a PUT URL per output file; no connection, no bucket (contracts/presigned.ts). */
const TranscriptionPresignedInputSchema = z.strictObject({
  sourceType: z.literal("s3_presigned"),
  sourceUrl: PresignedUrlSchema,
  outputUrls: z.strictObject({
    fullText: PresignedUrlSchema,
    segments: PresignedUrlSchema,
    srt: PresignedUrlSchema,
    vtt: PresignedUrlSchema,
  }),
  options,
});

export const TranscriptionInputSchema = z.discriminatedUnion(
  "sourceType",
  [TranscriptionBucketInputSchema, TranscriptionPresignedInputSchema],
  {
    message: "sourceType must be s3_direct or s3_presigned",
  },
);

const TranscriptionFilesSchema = z.object({
  fullText: z.string().min(1),
  segments: z.string().min(1),
  srt: z.string().min(1),
  vtt: z.string().min(1),
});

/** What every transcription job stores: the new transcript's id, and the options with the platform's preprocessing. */
const transcriptionStoredFields = {
  textSourceId: z.string().min(1),
  options: z.object({
    /** The hint: the job's one language (a list of one counts as one). */
    language: z.string().min(1).optional(),
    /** The allowed languages when the job listed two or more (no hint then: the engine detects among them). */
    languages: z.array(z.string().min(1)).min(2).optional(),
    /** The platform settings at create, for the record; the runner reads the current settings. */
    preprocessing: z.object({ extract: z.boolean(), denoise: z.boolean(), separateVocals: z.boolean() }),
    /** Resolved at create (absent on jobs stored before speakers reached transcription: not diarized). */
    diarization: z
      .object({ enabled: z.boolean(), minSpeakers: z.number().int().nullable(), maxSpeakers: z.number().int().nullable() })
      .optional(),
    /** The job's terms, then the project glossary's preferred spellings, deduplicated (at most VOCABULARY_MAX_TERMS + the glossary's). */
    vocabulary: z.array(z.string()).optional(),
    subtitleSpeakers: z.boolean().optional(),
    /**
     * Resolved at create from the job's `options.redaction` and the project's data policy; null or
     * absent: not redacted. `keepUnredacted`: the runner also hands over the text as heard.
     */
    redaction: StoredRedactionSchema.nullable().optional(),
  }),
};

/** A bucket job: its source as sent, and the output prefix and the four files' keys resolved under it. */
const TranscriptionBucketStoredSchema = z.object({
  ...transcriptionStoredFields,
  ...storedBucketSource,
  resolvedOutputKeys: TranscriptionFilesSchema,
});

/** An `s3_presigned` job: its URLs redacted (the full ones travel in the task's presigned grant), no keys. */
const TranscriptionPresignedStoredSchema = z.object({
  ...transcriptionStoredFields,
  sourceType: z.literal("s3_presigned"),
  sourceUrl: z.string(),
  outputUrls: TranscriptionFilesSchema,
});

/** The input a transcription job stores: what `resolveTranscription` returns and the runner step reads as `ctx.input`. */
export const TranscriptionStoredSchema = z.discriminatedUnion("sourceType", [
  TranscriptionBucketStoredSchema,
  TranscriptionPresignedStoredSchema,
]);
export type TranscriptionStored = z.infer<typeof TranscriptionStoredSchema>;

export const TRANSCRIPTION_STAGES = [
  "download",
  "probe",
  "extract_audio",
  "denoise_audio",
  "separate_vocals",
  "transcribe",
  "split_chunk",
  "compress_chunk",
  "transcribe_chunk",
  "merge",
  "transcribe_file",
  // An extension: who speaks when, reported inside `transcribe` (docs/api.md).
  "diarize",
  // An extension: personal data replaced by its type before anything is written (docs/api.md "Your data").
  "redact",
  "video_analysis",
  "upload_full_text",
  "upload_segments",
  "upload_transcript_srt",
  "upload_transcript_vtt",
] as const;

export const transcribeStep = defineStep({
  name: "transcribe",
  executor: "runner",
  handler: "transcription",
  stages: TRANSCRIPTION_STAGES,
  result: TranscriptionResultSchema,
});

/** Failures a retry cannot change: the source, its length or language, or the result's size. */
const FINAL_CODES = [
  "transcript_too_large",
  "unsupported_language",
  "source_not_found",
  "source_access_denied",
  OUTPUT_ACCESS_DENIED,
  PRESIGNED_URL_EXPIRED,
];

export const transcriptionService = defineService({
  serviceType: "transcription",
  input: TranscriptionInputSchema,
  stored: TranscriptionStoredSchema,
  stages: TRANSCRIPTION_STAGES,
  steps: [transcribeStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
