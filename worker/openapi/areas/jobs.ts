import { z } from "zod";
import { JobSchema, newJob, ProgressEntrySchema, AttemptHistoryEntrySchema } from "../../../contracts/job";
import { JOB_STATUSES, SERVICE_TYPES } from "../../../contracts/service-types";
import { CreateJobSchema } from "../../../contracts/job-requests";
import { ListJobsQuerySchema } from "../../jobs/list";
import { operations } from "../operation";
import { EXAMPLE_ID } from "../examples";

/** worker/routes/jobs.ts: create, list, read, progress, cancel and webhook deliveries of jobs. */

const TAG = "Jobs";

/** A transcription job just created from a bucket, as POST /v1/jobs answers it. */
export const JOB_EXAMPLE = {
  ...newJob({
    jobId: EXAMPLE_ID.job,
    serviceType: "transcription",
    priority: "normal",
    workspaceId: EXAMPLE_ID.workspace,
    projectId: EXAMPLE_ID.project,
    workspacePlan: "pro",
    input: {
      sourceType: "s3_direct",
      connectionId: EXAMPLE_ID.storageConnection,
      bucket: "media",
      sourceKey: "interviews/2026-11-23.mp4",
      textSourceId: EXAMPLE_ID.transcript,
      resolvedOutputPrefix: `svc-media-results/${EXAMPLE_ID.transcript}/transcripts/`,
      resolvedOutputKeys: {
        fullText: `svc-media-results/${EXAMPLE_ID.transcript}/transcripts/transcript.txt`,
        segments: `svc-media-results/${EXAMPLE_ID.transcript}/transcripts/segments.json`,
        srt: `svc-media-results/${EXAMPLE_ID.transcript}/transcripts/transcript.srt`,
        vtt: `svc-media-results/${EXAMPLE_ID.transcript}/transcripts/transcript.vtt`,
      },
      options: { preprocessing: { extract: true, denoise: true, separateVocals: false } },
    },
    sourceDisplayName: "2026-11-23",
    webhookUrl: null,
    createdByLabel: "ci key",
    createdByKind: "api_key",
    apiKeyLabel: "ci key",
    apiKeyId: EXAMPLE_ID.apiKey,
    isConsoleKey: false,
    createdAt: "2026-11-23T16:00:00.000Z",
    userMetadata: { customerJobRef: "episode-42" },
  }),
  status: "queued",
};

const ProgressViewSchema = z.object({
  progress: z.array(ProgressEntrySchema),
  currentStage: z.string().nullable(),
  attemptHistory: z.array(AttemptHistoryEntrySchema),
});

const WebhookDeliverySchema = z.object({
  deliveryId: z.string(),
  eventId: z.string(),
  event: z.string(),
  url: z.string(),
  attempt: z.number().int(),
  outcome: z.string(),
  responseStatus: z.number().int().nullable(),
  error: z.string().nullable(),
  durationMs: z.number().nullable(),
  nextRetryAt: z.string().nullable(),
  at: z.string(),
});

const jobParam = { jobId: "The job's id (`job_…`)." };

export const jobOperations = operations([
  {
    method: "post",
    path: "/v1/jobs",
    tag: TAG,
    summary: "Create a job",
    description:
      "Submits work for one service type. The body is one of the service types' requests, told apart by `serviceType`; " +
      "references (connections, buckets, transcripts) are checked and credits charged before the job is queued. " +
      "With an `Idempotency-Key` the same body replays the first answer (header `Idempotent-Replayed: true`). " +
      "`serviceType: voice_creation` also needs the permission `voice:write`.",
    access: "project",
    permission: "job:create",
    body: CreateJobSchema,
    bodyExample: {
      serviceType: "transcription",
      input: {
        sourceType: "s3_direct",
        connectionId: EXAMPLE_ID.storageConnection,
        bucket: "media",
        sourceKey: "interviews/2026-11-23.mp4",
      },
      userMetadata: { customerJobRef: "episode-42" },
    },
    headers: [
      { name: "Idempotency-Key", description: "Makes a retried create safe: the same key and body answer the first result again." },
    ],
    status: 201,
    data: JobSchema,
    dataExample: JOB_EXAMPLE,
    errors: ["notFound", "conflict", "serviceNotAvailable", "idempotencyKeyReused", "quotaExceeded"],
  },
  {
    method: "get",
    path: "/v1/jobs",
    tag: TAG,
    summary: "List jobs",
    description: "The project's jobs, filtered, sorted and paginated as the spec's list table says.",
    access: "project",
    permission: "job:list",
    query: ListJobsQuerySchema,
    queryNotes: {
      page: "Whole number, 1 to 1,000,000 (default 1). A page past the end answers `data: []`.",
      limit: "Whole number, 1-100 (default 20).",
      jobId: "Case-insensitive substring of the job id.",
      customerJobRef: "Exact, case-sensitive match on `userMetadata.customerJobRef`.",
      user: "Case-insensitive substring of the creator label, the API key name or the API key id.",
      input: "Case-insensitive substring of `s3://<bucket>/<sourceKey>`, of `sourceDisplayName`, or of the stored `input` as JSON.",
      statuses: `Comma-separated statuses: ${JOB_STATUSES.join(", ")}.`,
      serviceTypes: `Comma-separated service types: ${SERVICE_TYPES.join(", ")}.`,
      sort: "`jobId`, `service`, `status`, `user` (creator label) or `created` (default).",
      sortDir: "`asc` or `desc` (default). Ties are broken by job id in the same direction.",
    },
    data: z.array(JobSchema),
    dataExample: [JOB_EXAMPLE],
    metadataDescription: "`pagination`: `{ page, limit, total, totalPages }`.",
  },
  {
    method: "get",
    path: "/v1/jobs/:jobId",
    tag: TAG,
    summary: "Get a job",
    access: "project",
    permission: "job:read",
    params: jobParam,
    data: JobSchema,
    dataExample: JOB_EXAMPLE,
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/jobs/:jobId/progress",
    tag: TAG,
    summary: "Get a job's stage timeline",
    description: "Console sessions only: every progress event of the current attempt and the attempts before it.",
    access: "console",
    permission: "job:read",
    params: jobParam,
    data: ProgressViewSchema,
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/jobs/:jobId/cancel",
    tag: TAG,
    summary: "Cancel a job",
    description: "Requests a graceful cancel; a job that already ended answers 409.",
    access: "project",
    permission: "job:cancel",
    params: jobParam,
    data: JobSchema,
    errors: ["notFound", "conflict"],
  },
  {
    method: "get",
    path: "/v1/jobs/:jobId/webhook-deliveries",
    tag: TAG,
    summary: "List a job's webhook deliveries",
    description: "Every delivery attempt of the job's webhook events, newest first.",
    access: "project",
    permission: "job:read",
    params: jobParam,
    data: z.array(WebhookDeliverySchema),
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/jobs/:jobId/webhook-deliveries/:deliveryId/replay",
    tag: TAG,
    summary: "Re-send a webhook event",
    description:
      "Sends a finished job's final event (completed, failed, cancelled) again, with the same `webhook-id` (receivers deduplicate on it) and an attempt budget of its own (5 attempts); its attempts are numbered after the event's earlier ones. An earlier event (queued, processing) described a job that has moved on: 409. At most 5 replays of one event and 100 per project an hour: 429 `rateLimited` with `Retry-After` above either.",
    access: "project",
    permission: "webhook:replay",
    params: { ...jobParam, deliveryId: "A delivery of the job (`whd_…`), from the deliveries list." },
    status: 202,
    data: z.object({
      deliveryId: z.string(),
      eventId: z.string(),
      event: z.string(),
      replayed: z.literal(true),
      firstAttempt: z.number().int(),
    }),
    dataExample: {
      deliveryId: EXAMPLE_ID.webhookDelivery,
      eventId: `msg_${EXAMPLE_ID.job}_3`,
      event: "completed",
      replayed: true,
      firstAttempt: 4,
    },
    errors: ["notFound", "conflict", "rateLimited"],
  },
]);
