import { z } from "zod";
import { SearchRequestSchema } from "../../../contracts/catalog";
import { JobSchema, ProgressEntrySchema, AttemptHistoryEntrySchema } from "../../../contracts/job";
import { CreateJobSchema } from "../../../contracts/job-requests";
import { ID_PREFIX } from "../../../contracts/ids";
import { Id } from "../../../contracts/request-fields";
import { JobStatusSchema, ServiceTypeSchema } from "../../../contracts/service-types";
import { EXPORT_FORMATS, EXPORT_LAYERS } from "../../../contracts/transcript-exports";
import { CreateWorkflowSchema, WorkflowSchema } from "../../../contracts/workflows";

/**
 * The tools' input and output schemas. Requests are the contracts' own zod schemas (the ones the
 * Worker validates with), so the JSON Schema a client lists is the API's; the SDK converts them
 * with zod 4's `toJSONSchema` and checks every call's arguments against them before a tool runs.
 */

/** Longest a single `wait_for_job` call may block; a longer wait is another call. */
export const WAIT_MAX_SEC = 3600;
/** Under the 60 s request timeout most MCP clients (the TypeScript SDK's included) apply by default. */
export const WAIT_DEFAULT_SEC = 50;

const JobId = Id(ID_PREFIX.job).describe(`a job id (${ID_PREFIX.job}…)`);

export const SubmitJobInput = z.strictObject({
  job: CreateJobSchema.describe(
    "the POST /v1/jobs body: serviceType and its input (see docs/api.md); userMetadata and webhookUrl are optional",
  ),
  idempotencyKey: z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, { message: "1-255 printable ASCII characters, no spaces" })
    .optional()
    .describe("send the same key to make a retried submit return the same job instead of creating another"),
});

export const JobOutput = z.object({ job: JobSchema });

export const JobIdInput = z.strictObject({ jobId: JobId });

const timeoutSeconds = (what: string) =>
  z
    .number()
    .positive()
    .max(WAIT_MAX_SEC)
    .default(WAIT_DEFAULT_SEC)
    .describe(`how long to wait before answering with the ${what} still running (default ${WAIT_DEFAULT_SEC}); call again to keep waiting`);

export const WaitForJobInput = z.strictObject({ jobId: JobId, timeoutSeconds: timeoutSeconds("job") });

export const WaitForJobOutput = z.object({
  job: JobSchema,
  timedOut: z.boolean().describe("true when the job was still running at the timeout"),
});

export const JobProgressOutput = z.object({
  job: JobSchema,
  timeline: z
    .object({
      currentStage: z.string().nullable(),
      progress: z.array(ProgressEntrySchema),
      attemptHistory: z.array(AttemptHistoryEntrySchema),
    })
    .nullable()
    .describe("the stage timeline (GET /v1/jobs/{jobId}/progress): console sessions only, null for a project key"),
});

/** The filters of GET /v1/jobs (worker/jobs/list.ts), as JSON values rather than query strings. */
export const ListJobsInput = z.strictObject({
  statuses: z.array(JobStatusSchema).min(1).optional(),
  serviceTypes: z.array(ServiceTypeSchema).min(1).optional(),
  customerJobRef: z.string().min(1).max(120).optional().describe("exact userMetadata.customerJobRef"),
  input: z.string().min(1).max(1024).optional().describe("a substring of the job's source or input"),
  sort: z.enum(["jobId", "service", "status", "user", "created"]).optional().describe("default created"),
  sortDir: z.enum(["asc", "desc"]).optional().describe("default desc (newest first)"),
  page: z.number().int().min(1).optional(),
  limit: z.number().int().min(1).max(100).optional().describe("page size, default 20"),
});

export const ListJobsOutput = z.object({
  jobs: z.array(JobSchema),
  pagination: z.object({ page: z.number(), limit: z.number(), total: z.number(), totalPages: z.number() }),
});

/** Every export format but Word, which is a binary file and no use to a model as text. */
export const TEXT_EXPORT_FORMATS = z.enum(EXPORT_FORMATS).exclude(["docx"]);

export const GetTranscriptInput = z.strictObject({
  transcriptionId: Id(ID_PREFIX.transcript).describe("the transcript's txt_ id: a completed transcription's resultSummary.textSourceId"),
  format: TEXT_EXPORT_FORMATS.default("txt").describe("txt (plain text), srt, vtt, md (Markdown) or json (the segments)"),
  layer: z
    .enum(EXPORT_LAYERS)
    .default("segments")
    .describe("segments (current, with edits), glossary (glossary applied) or raw (the engine's output)"),
  speakers: z.boolean().default(true).describe("include speaker names"),
});

export const TranscriptOutput = z.object({
  transcriptionId: z.string(),
  format: TEXT_EXPORT_FORMATS,
  layer: z.enum(EXPORT_LAYERS),
  revision: z.number().nullable().describe("the transcript revision the text was rendered from"),
  content: z.string(),
});

export const SearchInput = SearchRequestSchema;

export const SearchOutput = z.object({
  query: z.string(),
  mode: z.enum(["hybrid", "dense", "sparse"]),
  results: z.array(
    z.looseObject({
      rank: z.number(),
      score: z.number(),
      textSourceId: z.string(),
      start: z.number(),
      end: z.number(),
      text: z.string(),
    }),
  ),
  groups: z.array(z.looseObject({ textSourceId: z.string() })),
  metadata: z.record(z.string(), z.unknown()),
});

export const SubmitWorkflowInput = z.strictObject({
  workflow: CreateWorkflowSchema.describe(
    "the POST /v1/workflows body: steps (each a job body with an id and dependsOn; {{step.field}} names an earlier step's result, e.g. {{transcribe.textSourceId}}) or a presetId with its variables",
  ),
  idempotencyKey: SubmitJobInput.shape.idempotencyKey,
});

export const WorkflowOutput = z.object({ workflow: WorkflowSchema });

export const WorkflowIdInput = z.strictObject({ workflowId: Id(ID_PREFIX.workflow).describe(`a workflow id (${ID_PREFIX.workflow}…)`) });

export const WaitForWorkflowInput = WorkflowIdInput.extend({ timeoutSeconds: timeoutSeconds("workflow") });

export const WaitForWorkflowOutput = z.object({
  workflow: WorkflowSchema,
  timedOut: z.boolean().describe("true when the workflow was still running at the timeout"),
});
