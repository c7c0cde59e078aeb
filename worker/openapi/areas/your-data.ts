import { z } from "zod";
import { AuditEventSchema } from "../../../contracts/audit-log";
import { AuditLogQuery, DeleteQuery } from "../../routes/deletion";
import { EXAMPLE_ID } from "../examples";
import { operations } from "../operation";

/** worker/routes/deletion.ts: deleting what the customer sent and what was made from it, and the audit log (docs/api.md "Your data"). */

const TAG = "Your data";

const DELETE_OUTPUTS_NOTE = {
  deleteOutputs:
    "`true`: also delete the files the service wrote into your bucket, through the job's own connection. Files written through presigned URLs cannot be deleted (the service holds no credential for them): `outputs.kept` lists them with the reason.",
};

const Deleted = z.looseObject({
  deleted: z.literal(true),
  auditEventId: z.string(),
  erased: z.looseObject({
    jobs: z.number(),
    records: z.record(z.string(), z.number()),
    catalogChunks: z.number(),
    platformObjects: z.number(),
  }),
  outputs: z.looseObject({
    deleted: z.number(),
    kept: z.array(z.object({ what: z.string(), key: z.string().nullable(), reason: z.string() })),
  }),
});

const AUDIT_EXAMPLE = {
  auditEventId: "aud_7g1c9d2kq0m3x5v8b4n6",
  workspaceId: EXAMPLE_ID.workspace,
  projectId: EXAMPLE_ID.project,
  action: "transcript.deleted",
  subject: { type: "transcript", id: EXAMPLE_ID.transcript },
  actor: { kind: "api_key", id: EXAMPLE_ID.apiKey, label: "ci key" },
  state: "completed",
  details: {
    jobs: 3,
    records: { transcripts: 1, translations: 1 },
    catalogChunks: 12,
    platformObjects: 7,
    bucketFilesDeleted: 0,
    bucketFilesKept: [],
  },
  createdAt: "2026-11-27T10:00:00.000Z",
  completedAt: "2026-11-27T10:00:01.000Z",
};

export const yourDataOperations = operations([
  {
    method: "delete",
    path: "/v1/transcriptions/:transcriptionId",
    tag: TAG,
    summary: "Delete a transcript and everything made from it",
    description:
      "Deletes the transcript with every layer, its translations, metadata, summaries, clip generations, thumbnails, dubbings (and the voices they made from its speakers), its catalog chunks and vectors, the jobs that made them (rows, state, webhook deliveries) and their scratch objects. Answers 409 naming the job when a job that is not finished uses it. Recorded in the audit log.",
    access: "project",
    permission: "transcript:delete",
    params: { transcriptionId: "The transcript's id (`txt_…`)." },
    query: DeleteQuery,
    queryNotes: DELETE_OUTPUTS_NOTE,
    data: Deleted,
    errors: ["notFound", "conflict"],
  },
  {
    method: "delete",
    path: "/v1/jobs/:jobId",
    tag: TAG,
    summary: "Delete a finished job",
    description:
      "Deletes a finished job's row, its Durable Object state, its webhook deliveries, idempotency record and scratch objects. Records the job made stay (delete the transcript for those). 409 while the job is not finished: cancel it first.",
    access: "project",
    permission: "job:delete",
    params: { jobId: "The job's id (`job_…`)." },
    query: DeleteQuery,
    queryNotes: DELETE_OUTPUTS_NOTE,
    data: Deleted,
    errors: ["notFound", "conflict"],
  },
  {
    method: "delete",
    path: "/v1/projects/:projectId",
    tag: TAG,
    summary: "Delete a project and everything it holds",
    description:
      "Revokes the project's keys and console sessions and deactivates its storage connections at once, then erases everything the project holds in batches (the first at once, the rest by the scheduled run). Answers 202 with the audit entry to follow; 409 while one of its jobs is not finished.",
    access: "workspace",
    permission: "project:delete",
    params: { projectId: "The project's id (`prj_…`)." },
    query: DeleteQuery,
    queryNotes: DELETE_OUTPUTS_NOTE,
    status: 202,
    data: z.object({ projectId: z.string(), state: z.literal("in_progress"), auditEventId: z.string() }),
    errors: ["notFound", "conflict"],
  },
  {
    method: "get",
    path: "/v1/audit-log",
    tag: TAG,
    summary: "List the workspace's deletions",
    description:
      "Every deletion, by a key, a person in the console or a retention policy, newest first. Entries hold ids and counts, never content.",
    access: "workspace",
    permission: "audit_log:read",
    query: AuditLogQuery,
    queryNotes: { before: "An entry's `createdAt`: the page after it (`metadata.nextBefore`)." },
    data: z.array(AuditEventSchema),
    dataExample: [AUDIT_EXAMPLE],
    metadataDescription: "`nextBefore`: the `before` of the next page, or null on the last.",
  },
  {
    method: "get",
    path: "/v1/audit-log/:auditEventId",
    tag: TAG,
    summary: "Get an audit log entry",
    access: "workspace",
    permission: "audit_log:read",
    params: { auditEventId: "The entry's id (`aud_…`)." },
    data: AuditEventSchema,
    dataExample: AUDIT_EXAMPLE,
    errors: ["notFound"],
  },
]);
