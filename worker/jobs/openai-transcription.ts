import type { Job } from "../../contracts/job";
import { renderTranscription, type RenderedTranscription } from "../../contracts/openai-transcription-formats";
import { extensionOfName, OPENAI_AUDIO_EXTENSIONS, type OpenAiTranscriptionRequest } from "../../contracts/openai-transcription-request";
import { TranscriptionStoredSchema } from "../../contracts/services/transcription";
import type { Segment } from "../../contracts/transcript";
import type { Principal } from "../auth/principal";
import { getDb } from "../db/client";
import type { Env } from "../env";
import { ApiError, validationError } from "../errors";
import type { ServerTiming } from "../http/server-timing";
import { loadSettings } from "../platform/settings";
import { blobStore } from "../storage/blobs";
import { defaultUploadDestination, deleteUpload, putUpload } from "../storage/uploads";
import { ownedTranscript, readLayer } from "../transcripts/store";
import { createJob } from "./create";
import { waitForJobEnd } from "./wait";

/**
 * `POST /v1/audio/transcriptions` behind the route: the upload is written to the project's default
 * storage (worker/storage/uploads.ts), an ordinary transcription job is made of it by POST
 * /v1/jobs's own create (charged, listed and visible like any), and the request waits for it up to
 * the setting `transcription.openAiWaitSeconds`.
 */

export type OpenAiTranscriptionOutcome =
  | { kind: "done"; job: Job; rendered: RenderedTranscription }
  /** Still running at the deadline: the caller answers 202 with the job to poll. */
  | { kind: "running"; job: Job };

/** The job body: a bucket transcription of the upload, with what the request asked for as options. */
function jobBody(req: OpenAiTranscriptionRequest, connectionId: string, bucket: string, sourceKey: string) {
  return {
    serviceType: "transcription",
    input: {
      sourceType: "s3_direct",
      connectionId,
      bucket,
      sourceKey,
      options: {
        ...(req.language !== null ? { language: req.language } : {}),
        ...(req.vocabulary.length > 0 ? { vocabulary: req.vocabulary } : {}),
      },
    },
    // The model asked for is recorded where the job shows it; the platform's engine answers whatever it names.
    userMetadata: { openai: { model: req.model, responseFormat: req.responseFormat } },
  };
}

export async function transcribeUpload(
  env: Env,
  principal: Principal,
  req: OpenAiTranscriptionRequest,
  timing?: ServerTiming,
  /** The client's request: a client that went away is not waited for. */
  signal?: AbortSignal,
): Promise<OpenAiTranscriptionOutcome> {
  const db = getDb(env.DB);
  const projectId = principal.projectId as string;
  const dest = await defaultUploadDestination(db, env.ENCRYPTION_KEY, projectId, "file");
  const put = () => putUpload(dest, req.file, extensionOfName(req.file.name));
  let key: string;
  try {
    key = timing ? await timing.time("upload", put) : await put();
  } catch (err) {
    throw validationError(
      `the upload could not be written to bucket ${dest.bucket} through storage connection ${dest.connectionId}: ${(err as Error).message}`,
      [{ path: "file", issue: "uploadNotWritable" }],
    );
  }
  let job: Job;
  try {
    job = await createJob(env, principal, jobBody(req, dest.connectionId, dest.bucket, key), timing, undefined, {
      extraSourceExtensions: OPENAI_AUDIO_EXTENSIONS,
    });
  } catch (err) {
    // A refusal (4xx) made no job; after anything else a job may exist after all (createJob could not
    // tell), and its source must stay where it points.
    if (err instanceof ApiError && err.status < 500) await deleteUpload(dest, key);
    throw err;
  }
  const settings = await loadSettings(db);
  const ended = await waitForJobEnd(env, job.jobId, settings.transcription.openAiWaitSeconds * 1000, signal);
  if (!ended) return { kind: "running", job };
  if (ended.status !== "completed") throw jobEndedUnfinished(ended);
  return { kind: "done", job: ended, rendered: await renderJobTranscript(env, ended, req) };
}

/** A job that failed or was cancelled: 422 `jobFailed`, the job's own error code in `details`, its id in `metadata`. */
function jobEndedUnfinished(job: Job): ApiError {
  const error = job.error;
  const why = error ? `${error.code}: ${error.message}` : "no error recorded";
  return new ApiError(
    "jobFailed",
    `the transcription job ${job.jobId} ended ${job.status} (${why})`,
    [{ path: "file", issue: error?.code ?? job.status }],
    { jobId: job.jobId },
    { "x-media-jobs-job-id": job.jobId },
  );
}

/** The job's transcript as it is now (its current segments layer, edits included), in the format asked for. */
export async function renderJobTranscript(
  env: Env,
  job: Job,
  req: Pick<OpenAiTranscriptionRequest, "responseFormat" | "granularities">,
): Promise<RenderedTranscription> {
  const db = getDb(env.DB);
  const { textSourceId } = TranscriptionStoredSchema.parse(job.input);
  const t = await ownedTranscript(db, job.projectId, textSourceId);
  const segments = (await readLayer<Segment[]>(db, blobStore(env.BLOBS), t, "segments")) ?? [];
  return renderTranscription(
    { language: t.language ?? "", durationSec: t.durationSec ?? 0, segments },
    req.responseFormat,
    req.granularities,
  );
}
