import { z } from "zod";

/**
 * The audit log's entries as the API shows them (`GET /v1/audit-log`, docs/api.md "Your data"): what
 * was deleted, when, by whom or by which policy, and what the deletion covered. Ids and counts only.
 */

export const AUDIT_ACTIONS = ["transcript.deleted", "job.deleted", "project.deleted", "voice.deleted"] as const;
export const AuditActionSchema = z.enum(AUDIT_ACTIONS);
export type AuditAction = z.infer<typeof AuditActionSchema>;

export const AuditActorSchema = z.object({
  /** `api_key`: a key; `console`: a person signed in to the console; `policy`: the project's retention policy. */
  kind: z.enum(["api_key", "console", "policy"]),
  /** The key's or the person's id; null for a policy. */
  id: z.string().nullable(),
  /** The key's name, the person's handle, or the policy (`retentionDays: 30`). */
  label: z.string(),
});
export type AuditActor = z.infer<typeof AuditActorSchema>;

/** A file in the customer's bucket that a deletion with `deleteOutputs` could not remove, and why. */
export const KeptOutputSchema = z.object({
  what: z.string(),
  key: z.string().nullable(),
  reason: z.string(),
});

export const AuditEventSchema = z.object({
  auditEventId: z.string(),
  workspaceId: z.string(),
  projectId: z.string().nullable(),
  action: AuditActionSchema,
  subject: z.object({ type: z.string(), id: z.string() }),
  actor: AuditActorSchema,
  /** `in_progress` until every store has been erased (a project's deletion runs in batches). */
  state: z.enum(["in_progress", "completed"]),
  /** What the deletion covered: counts per kind of record and store, files deleted from the bucket, files kept and why. */
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;
