import { z } from "zod";
import { TriggersSchema } from "../../../contracts/triggers";
import { CreateWorkflowSchema, PresetBodySchema, PresetSchema, WorkflowSchema } from "../../../contracts/workflows";
import { ListWorkflowsQuerySchema } from "../../workflows/view";
import { EXAMPLE_ID } from "../examples";
import { operations } from "../operation";

/** worker/routes/workflows.ts and the trigger routes of worker/routes/storage-connections.ts (docs/api.md "Workflows"). */

const TAG = "Workflows";

const STEPS_EXAMPLE = [
  {
    id: "transcribe",
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: EXAMPLE_ID.storageConnection, bucket: "media", sourceKey: "talks/keynote.mp4" },
  },
  { id: "clips", serviceType: "clip_generation", input: { textSourceId: "{{transcribe.textSourceId}}", options: { maxClips: 3 } } },
  { id: "spanish", serviceType: "dubbing", input: { transcriptionId: "{{transcribe.textSourceId}}", targetLanguage: "es" } },
];

const WORKFLOW_EXAMPLE = {
  workflowId: "wfl_3k9d2m1q8x7v5b4n6c0z",
  workspaceId: EXAMPLE_ID.workspace,
  projectId: EXAMPLE_ID.project,
  presetId: null,
  status: "running",
  steps: [
    {
      id: "transcribe",
      serviceType: "transcription",
      dependsOn: [],
      status: "processing",
      jobId: EXAMPLE_ID.job,
      error: null,
      createdAt: "2026-11-27T10:00:00.000Z",
      endedAt: null,
    },
    {
      id: "clips",
      serviceType: "clip_generation",
      dependsOn: ["transcribe"],
      status: "waiting",
      jobId: null,
      error: null,
      createdAt: null,
      endedAt: null,
    },
  ],
  credits: { transcription_jobs: 1, clip_credits: 3 },
  trigger: null,
  variables: {},
  error: null,
  webhookUrl: null,
  userMetadata: null,
  createdByLabel: "ci key",
  cancelRequestedAt: null,
  createdAt: "2026-11-27T10:00:00.000Z",
  updatedAt: "2026-11-27T10:00:01.000Z",
  endedAt: null,
};

const workflowParam = { workflowId: "The workflow's id (`wfl_…`)." };
const presetParam = { presetId: "The preset's id (`pst_…`); its name works too." };
const Connection = z.looseObject({
  connectionId: z.string(),
  triggers: TriggersSchema,
  eventsPath: z.string(),
  eventSecret: z.string().optional(),
});

export const workflowOperations = operations([
  {
    method: "post",
    path: "/v1/workflows",
    tag: TAG,
    summary: "Create a workflow",
    description:
      "Steps, each an ordinary job body with an `id` and the steps it waits for (`dependsOn`, and every `{{step.field}}` template it uses), or a `presetId` with its `variables`. Checked whole before anything runs: the graph, every step's input, the references a step names outright, the permissions of each step's service and the credits of all steps together against the plan. Each step becomes an ordinary job (own id, webhooks, credits charged when it is made) once the steps it waits for complete; a step that fails skips what depends on it. With `Idempotency-Key`, a repeat answers the same workflow.",
    access: "project",
    permission: "workflow:create",
    body: CreateWorkflowSchema,
    bodyExample: { steps: STEPS_EXAMPLE },
    headers: [
      {
        name: "Idempotency-Key",
        description:
          "Names the workflow for as long as it exists: a repeat with the same body answers it again (`Idempotent-Replayed: true`).",
      },
    ],
    status: 201,
    data: WorkflowSchema,
    dataExample: WORKFLOW_EXAMPLE,
    errors: ["notFound", "quotaExceeded", "serviceNotAvailable", "idempotencyKeyReused"],
  },
  {
    method: "get",
    path: "/v1/workflows",
    tag: TAG,
    summary: "List workflows",
    description: "Newest first, paginated as GET /v1/jobs is.",
    access: "project",
    permission: "workflow:read",
    query: ListWorkflowsQuerySchema,
    queryNotes: { statuses: "Comma-separated: running, cancelling, completed, failed, cancelled." },
    data: z.array(WorkflowSchema),
  },
  {
    method: "get",
    path: "/v1/workflows/:workflowId",
    tag: TAG,
    summary: "Get a workflow",
    description: "Its steps, their jobs and states (a running step shows its job's current status).",
    access: "project",
    permission: "workflow:read",
    params: workflowParam,
    data: WorkflowSchema,
    dataExample: WORKFLOW_EXAMPLE,
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/workflows/:workflowId/cancel",
    tag: TAG,
    summary: "Cancel a workflow",
    description:
      "Steps still waiting are cancelled at once; running jobs are cancelled as POST /v1/jobs/{jobId}/cancel does. 409 once the workflow ended.",
    access: "project",
    permission: "workflow:cancel",
    params: workflowParam,
    data: WorkflowSchema,
    errors: ["notFound", "conflict"],
  },
  {
    method: "post",
    path: "/v1/presets",
    tag: TAG,
    summary: "Save a preset",
    description:
      "A named workflow of the project: its steps may use `{{vars.name}}` and, for upload triggers, `{{trigger.key}}` and the other trigger fields. Names are unique per project.",
    access: "project",
    permission: "preset:write",
    body: PresetBodySchema,
    bodyExample: { name: "publish", steps: STEPS_EXAMPLE },
    status: 201,
    data: PresetSchema,
    errors: ["conflict"],
  },
  {
    method: "get",
    path: "/v1/presets",
    tag: TAG,
    summary: "List presets",
    access: "project",
    permission: "preset:read",
    data: z.array(PresetSchema),
  },
  {
    method: "get",
    path: "/v1/presets/:presetId",
    tag: TAG,
    summary: "Get a preset",
    access: "project",
    permission: "preset:read",
    params: presetParam,
    data: PresetSchema,
    errors: ["notFound"],
  },
  {
    method: "put",
    path: "/v1/presets/:presetId",
    tag: TAG,
    summary: "Replace a preset",
    description: "Workflows already made from it keep the steps they were made with.",
    access: "project",
    permission: "preset:write",
    params: presetParam,
    body: PresetBodySchema,
    data: PresetSchema,
    errors: ["notFound", "conflict"],
  },
  {
    method: "delete",
    path: "/v1/presets/:presetId",
    tag: TAG,
    summary: "Delete a preset",
    description: "409 while a trigger of a storage connection uses it.",
    access: "project",
    permission: "preset:write",
    params: presetParam,
    data: z.object({ presetId: z.string(), deleted: z.literal(true) }),
    errors: ["notFound", "conflict"],
  },
  {
    method: "put",
    path: "/v1/storage-connections/:connectionId/triggers",
    tag: TAG,
    summary: "Set a connection's upload triggers",
    description:
      "The whole list: each a bucket of the connection, a key prefix (and optional suffixes) and the preset whose workflow starts for every object created there, once per object version. The first list also makes the connection's event secret, answered once as `eventSecret`; point the store's event notifications at `eventsPath` with it.",
    access: "project",
    permission: "storage_connection:create",
    params: { connectionId: "The connection's id." },
    body: z.strictObject({ triggers: TriggersSchema }),
    data: Connection,
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/storage-connections/:connectionId/event-secret",
    tag: TAG,
    summary: "Rotate a connection's event secret",
    description: "Answers the new secret once; the old one stops working at once.",
    access: "project",
    permission: "storage_connection:create",
    params: { connectionId: "The connection's id." },
    data: Connection,
    errors: ["notFound"],
  },
  {
    method: "post",
    path: "/v1/storage-connections/:connectionId/events",
    tag: TAG,
    summary: "Receive a store's event notifications",
    description:
      "The S3 event notification JSON (`Records[]`, as AWS S3 and MinIO send it), signed with the connection's event secret. Each `ObjectCreated` record under a trigger starts that trigger's preset once per object version; the answer lists what started and what was ignored and why. Unsigned, wrongly signed and unknown connections all answer the same 401.",
    access: "signed",
    params: { connectionId: "The connection's id." },
    status: 202,
    data: z.object({
      received: z.number(),
      started: z.array(z.object({ workflowId: z.string(), key: z.string(), presetId: z.string() })),
      refused: z.array(z.object({ workflowId: z.string(), key: z.string(), presetId: z.string(), reason: z.string() })),
      ignored: z.array(z.object({ key: z.string(), reason: z.string() })),
    }),
    errors: ["validationError"],
  },
]);
