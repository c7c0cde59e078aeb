import { Hono } from "hono";
import { z } from "zod";
import { AuditActionSchema } from "../../contracts/audit-log";
import { principalOf, projectOf } from "../auth/middleware";
import { getDb } from "../db/client";
import { actorOfPrincipal, findAuditEvent, listAuditEvents, publicAuditEvent } from "../deletion/audit-log";
import { deleteJob, deleteTranscript, deleteVoice, startProjectDeletion, type DeletionOutcome } from "../deletion/deletions";
import { runProjectDeletionNow } from "../deletion/retention";
import type { AppBindings } from "../env";
import { notFound } from "../errors";
import { ok } from "../http/envelope";
import { queryWith } from "../http/validate";

/**
 * Deletion and the audit log (an extension of the spec; docs/api.md "Your data"):
 *   DELETE /v1/transcriptions/{id}   the transcript and everything made from it (200)
 *   DELETE /v1/jobs/{jobId}          a finished job: its row, state, deliveries and scratch (200)
 *   DELETE /v1/projects/{projectId}  everything the project holds; keys and connections revoked first (202)
 *   DELETE /v1/voices/{voiceId}      a voice (dubbings that used it keep their record and audio)
 *   GET    /v1/audit-log             the workspace's deletions, newest first
 *   GET    /v1/audit-log/{id}
 * `?deleteOutputs=true` also deletes the files the service wrote into the customer's bucket.
 */

export const DeleteQuery = z.strictObject({
  deleteOutputs: z
    .enum(["true", "false"], { message: "deleteOutputs must be true or false" })
    .optional()
    .transform((v) => v === "true"),
});

export const AuditLogQuery = z.strictObject({
  projectId: z.string().min(1).max(64).optional(),
  action: AuditActionSchema.optional(),
  before: z.string().min(1).max(40).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});

/** What a finished deletion answers: what went, what in the bucket stayed and why, and its audit entry. */
function deletionAnswer(subject: Record<string, string>, outcome: DeletionOutcome) {
  const t = outcome.tally;
  return {
    ...subject,
    deleted: true,
    auditEventId: outcome.audit.id,
    erased: { jobs: t.jobs, records: t.records, catalogChunks: t.catalogChunks, platformObjects: t.platformObjects },
    outputs: { deleted: t.bucketFilesDeleted, kept: t.bucketFilesKept },
  };
}

export const deletionRoutes = new Hono<AppBindings>()
  .delete("/transcriptions/:transcriptionId", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, DeleteQuery);
    const id = c.req.param("transcriptionId");
    const outcome = await deleteTranscript(c.env, actorOfPrincipal(p), p.workspaceId, projectOf(p), id, q);
    return ok(c, deletionAnswer({ transcriptionId: id }, outcome));
  })
  .delete("/jobs/:jobId", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, DeleteQuery);
    const id = c.req.param("jobId");
    const outcome = await deleteJob(c.env, actorOfPrincipal(p), p.workspaceId, projectOf(p), id, q);
    return ok(c, deletionAnswer({ jobId: id }, outcome));
  })
  .delete("/projects/:projectId", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, DeleteQuery);
    const id = c.req.param("projectId");
    const audit = await startProjectDeletion(c.env, actorOfPrincipal(p), p.workspaceId, id, q);
    // The first batch now; the scheduled run carries on with the rest (a small project is done by this one).
    c.executionCtx.waitUntil(
      runProjectDeletionNow(c.env, audit.id).catch((err: unknown) =>
        console.error(JSON.stringify({ level: "warn", msg: "project deletion batch failed", projectId: id, error: String(err) })),
      ),
    );
    return ok(c, { projectId: id, state: "in_progress", auditEventId: audit.id }, {}, 202);
  })
  .delete("/voices/:voiceId", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, DeleteQuery);
    const id = c.req.param("voiceId");
    const outcome = await deleteVoice(c.env, actorOfPrincipal(p), p.workspaceId, projectOf(p), id, q);
    return ok(c, deletionAnswer({ voiceId: id }, outcome));
  })
  .get("/audit-log", async (c) => {
    const p = principalOf(c);
    const q = queryWith(c, AuditLogQuery);
    const rows = await listAuditEvents(getDb(c.env.DB), p.workspaceId, q);
    return ok(c, rows.map(publicAuditEvent), { nextBefore: rows.length === q.limit ? (rows.at(-1)?.createdAt ?? null) : null });
  })
  .get("/audit-log/:auditEventId", async (c) => {
    const p = principalOf(c);
    const id = c.req.param("auditEventId");
    const row = await findAuditEvent(getDb(c.env.DB), p.workspaceId, id);
    if (!row) throw notFound(`audit event not found: ${id}`, [{ path: "auditEventId", issue: `notFound:${id}` }]);
    return ok(c, publicAuditEvent(row));
  });
