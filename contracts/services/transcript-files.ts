import { z } from "zod";
import { OUTPUT_ACCESS_DENIED } from "../presigned";
import { Id } from "../request-fields";
import { TRANSCRIPT_FILE_STAGES } from "../transcript-files";
import { COMMON_FAILURE_CODES, defineService, defineStep, SAFETY_FINAL_CODES } from "./types";

/**
 * Transcript files (an extension, docs/api.md "Stale outputs and regenerate"): a completed
 * transcript's four files in the customer's bucket (`outputKeys`: text, segments JSON, SRT, VTT)
 * rewritten from its current segments, after edits left them behind. Text already paid for is only
 * rendered again, so the one step runs in the Worker: no media, no runner.
 */

export const TranscriptFilesInputSchema = z.strictObject({ textSourceId: Id("txt_") });

const FilesSchema = z.object({ fullText: z.string().min(1), segments: z.string().min(1), srt: z.string().min(1), vtt: z.string().min(1) });

/** What create resolved: where the files are (the transcription's keys, through its connection) and how its speakers are named in them. */
export const TranscriptFilesStoredSchema = z.object({
  textSourceId: z.string().min(1),
  connectionId: z.string().min(1),
  bucket: z.string().min(1),
  outputKeys: FilesSchema,
  /** The transcription's `options.subtitleSpeakers`, so the rewrite names speakers as the first files did. */
  subtitleSpeakers: z.boolean(),
});
export type TranscriptFilesStored = z.infer<typeof TranscriptFilesStoredSchema>;

export const TRANSCRIPT_FILES_STAGES = ["load_transcription", ...Object.values(TRANSCRIPT_FILE_STAGES)] as const;

export const TranscriptFilesResultSchema = z.object({
  textSourceId: z.string(),
  /** The transcript revision the files now hold. */
  revision: z.number().int().nonnegative(),
  outputKeys: FilesSchema,
  bytes: z.number().int().nonnegative(),
});

export const writeTranscriptFilesStep = defineStep({
  name: "write",
  executor: "worker",
  handler: "transcript_files.write",
  stages: TRANSCRIPT_FILES_STAGES,
  result: TranscriptFilesResultSchema,
});

/** The transcript or its connection went away since create, or the bucket refuses the write: a retry meets the same. */
const FINAL_CODES = ["source_not_found", "source_access_denied", OUTPUT_ACCESS_DENIED];

export const transcriptFilesService = defineService({
  serviceType: "transcript_files",
  input: TranscriptFilesInputSchema,
  stored: TranscriptFilesStoredSchema,
  stages: TRANSCRIPT_FILES_STAGES,
  steps: [writeTranscriptFilesStep],
  failureCodes: [...COMMON_FAILURE_CODES, ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
