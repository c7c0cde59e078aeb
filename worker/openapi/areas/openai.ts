import { z } from "zod";
import { JobSchema } from "../../../contracts/job";
import {
  OPENAI_AUDIO_EXTENSIONS,
  OPENAI_FILE_MAX_BYTES,
  OPENAI_PROMPT_MAX_CHARS,
  OPENAI_RESPONSE_FORMATS,
  OPENAI_UPLOAD_PATH,
  TIMESTAMP_GRANULARITIES,
} from "../../../contracts/openai-transcription-request";
import { operations } from "../operation";

/** The form of `POST /v1/audio/transcriptions` (contracts/openai-transcription-request.ts checks it). */
const OpenAiTranscriptionForm = z.object({
  file: z
    .string()
    .describe(`The audio or video file (${OPENAI_AUDIO_EXTENSIONS.join(", ")}), at most ${OPENAI_FILE_MAX_BYTES} bytes.`)
    .meta({ format: "binary" }),
  model: z.string().min(1).max(256).describe("Any model name; recorded on the job, answered by the platform's speech engine."),
  language: z.string().optional().describe("A language code (`en`): the recording's language."),
  "languages[]": z.array(z.string()).max(10).optional().describe("The languages the recording may be in (engines that detect languages)."),
  prompt: z
    .string()
    .max(OPENAI_PROMPT_MAX_CHARS)
    .optional()
    .describe("Terms split at commas and sentence ends become the job's vocabulary."),
  "keywords[]": z.array(z.string()).max(100).optional().describe("Vocabulary terms, before the prompt's."),
  response_format: z.enum(OPENAI_RESPONSE_FORMATS).optional().describe("`json` unless given."),
  "timestamp_granularities[]": z
    .array(z.enum(TIMESTAMP_GRANULARITIES))
    .optional()
    .describe("For `verbose_json`: `segment` (default), `word`."),
  temperature: z.number().min(0).max(1).optional().describe("Accepted and ignored: the engines decode deterministically."),
  stream: z.literal("false").optional().describe("Streaming is not supported: only `false`."),
});

/** worker/routes/openai-transcriptions.ts. */
export const openAiOperations = operations([
  {
    method: "post",
    path: OPENAI_UPLOAD_PATH,
    tag: "Transcripts",
    summary: "Transcribe an upload (OpenAI-compatible)",
    description:
      "OpenAI's `POST /v1/audio/transcriptions`: the upload is kept in the project's default storage connection and transcribed by an " +
      "ordinary transcription job (charged and listed like any). The request waits for the job up to the setting " +
      "`transcription.openAiWaitSeconds` (60 s): then 200 with the transcript in `response_format`, or 202 with the job to poll. " +
      "Errors keep this API's envelope; a job that failed answers 422 `jobFailed`.",
    access: "project",
    permission: "job:create and transcript:read",
    multipartBody: OpenAiTranscriptionForm,
    raw: {
      contentType: ["application/json", "text/plain"],
      description:
        "The transcript: `json` `{ text, usage }`, `verbose_json` `{ task, language, duration, text, segments, words?, usage }` " +
        "(application/json), or `text`, `srt`, `vtt` (text/plain).",
      headers: { "x-media-jobs-job-id": "The transcription job that made it." },
    },
    accepted: {
      data: JobSchema,
      description: "The job outlasted the wait: the Job, to poll at `Location` (`GET /v1/jobs/{jobId}`).",
      headers: { Location: "`/v1/jobs/{jobId}`.", "Retry-After": "Seconds before polling.", "x-media-jobs-job-id": "The job's id." },
    },
    errors: ["notFound", "quotaExceeded", "jobFailed"],
  },
]);
