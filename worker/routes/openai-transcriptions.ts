import { Hono } from "hono";
import { OpenAiFieldError, parseOpenAiTranscription, type OpenAiTranscriptionRequest } from "../../contracts/openai-transcription-request";
import { principalOf } from "../auth/middleware";
import type { AppBindings } from "../env";
import { ApiError } from "../errors";
import { transcribeUpload } from "../jobs/openai-transcription";

/**
 * `POST /v1/audio/transcriptions`: OpenAI's transcription API on this platform (docs/api.md
 * "OpenAI-compatible transcription"). The body's size is bounded before it is read (worker/app.ts);
 * errors keep this API's envelope, whose `error.message` the `openai` client shows as its APIError's.
 */

/** The multipart form, or 415/422 in the envelope: a body that is not a form is never guessed at. */
async function formOf(req: Request): Promise<FormData> {
  if (!/^multipart\/form-data\b/i.test(req.headers.get("content-type") ?? ""))
    throw new ApiError("unsupportedMediaType", "request body must be multipart/form-data (a file field `file` and text fields)");
  try {
    return await req.formData();
  } catch {
    throw new ApiError("validationError", "request body is not a readable multipart/form-data body", [
      { path: "body", issue: "invalidFormat" },
    ]);
  }
}

/** The form's fields checked; a refused field answers in the envelope with its form name as the path. */
function requestOf(form: FormData): OpenAiTranscriptionRequest {
  try {
    return parseOpenAiTranscription(form);
  } catch (err) {
    if (!(err instanceof OpenAiFieldError)) throw err;
    throw new ApiError(err.status === 413 ? "payloadTooLarge" : "validationError", err.message, [{ path: err.path, issue: err.issue }]);
  }
}

export const openAiTranscriptionRoutes = new Hono<AppBindings>().post("/", async (c) => {
  const req = requestOf(await formOf(c.req.raw));
  const outcome = await transcribeUpload(c.env, principalOf(c), req, c.get("timing"), c.req.raw.signal);
  c.header("x-media-jobs-job-id", outcome.job.jobId);
  if (outcome.kind === "running") {
    c.header("Location", `/v1/jobs/${outcome.job.jobId}`);
    c.header("Retry-After", "5");
    return c.json({ data: outcome.job, metadata: { poll: `/v1/jobs/${outcome.job.jobId}` } }, 202);
  }
  return c.body(outcome.rendered.body, 200, { "content-type": outcome.rendered.contentType, "cache-control": "no-store" });
});
