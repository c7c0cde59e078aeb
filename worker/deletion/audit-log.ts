import { and, desc, eq, lt } from "drizzle-orm";
import type { AuditAction, AuditActor, AuditEvent } from "../../contracts/audit-log";
import { nowIso } from "../../contracts/clock";
import { newId } from "../../contracts/ids";
import { actorOf, type Principal } from "../auth/principal";
import type { Db } from "../db/client";
import { auditEvents } from "../db/schema";

/**
 * The audit log: one entry per deletion, written BEFORE anything is erased with what is still to do
 * (`pending`), and completed when every store is done. An entry left `in_progress` (a crash, a store
 * that failed, a project deleted in batches) is resumed by the scheduled run from its `pending`.
 */

export type AuditRow = typeof auditEvents.$inferSelect;

/** Who deleted: the key or person behind the request. */
export function actorOfPrincipal(p: Principal): AuditActor {
  const a = actorOf(p);
  return a.isConsole ? { kind: "console", id: a.userId, label: a.label } : { kind: "api_key", id: a.apiKeyId, label: a.label };
}

/** Who deleted on a retention policy's behalf. */
export const policyActor = (label: string): AuditActor => ({ kind: "policy", id: null, label });

export async function openAuditEvent(
  db: Db,
  e: {
    workspaceId: string;
    projectId: string | null;
    action: AuditAction;
    subject: { type: string; id: string };
    actor: AuditActor;
    pending: Record<string, unknown>;
    details?: Record<string, unknown>;
  },
): Promise<AuditRow> {
  const row: AuditRow = {
    id: newId("auditEvent"),
    workspaceId: e.workspaceId,
    projectId: e.projectId,
    action: e.action,
    subjectType: e.subject.type,
    subjectId: e.subject.id,
    actorKind: e.actor.kind,
    actorId: e.actor.id,
    actorLabel: e.actor.label,
    state: "in_progress",
    details: e.details ?? {},
    pending: e.pending,
    createdAt: nowIso(),
    completedAt: null,
  };
  await db.insert(auditEvents).values(row);
  return row;
}

/** What is left to do, and what has been done so far (a batch's progress). */
export async function progressAuditEvent(
  db: Db,
  id: string,
  pending: Record<string, unknown>,
  details: Record<string, unknown>,
): Promise<void> {
  await db.update(auditEvents).set({ pending, details }).where(eq(auditEvents.id, id));
}

export async function completeAuditEvent(db: Db, id: string, details: Record<string, unknown>): Promise<AuditRow | undefined> {
  const rows = await db
    .update(auditEvents)
    .set({ state: "completed", pending: null, details, completedAt: nowIso() })
    .where(eq(auditEvents.id, id))
    .returning();
  return rows[0];
}

/** Entries still in progress, oldest first: what the scheduled run resumes. */
export async function unfinishedAuditEvents(db: Db, limit: number): Promise<AuditRow[]> {
  return db.select().from(auditEvents).where(eq(auditEvents.state, "in_progress")).orderBy(auditEvents.createdAt).limit(limit).all();
}

export function publicAuditEvent(r: AuditRow): AuditEvent {
  return {
    auditEventId: r.id,
    workspaceId: r.workspaceId,
    projectId: r.projectId,
    action: r.action as AuditAction,
    subject: { type: r.subjectType, id: r.subjectId },
    actor: { kind: r.actorKind, id: r.actorId, label: r.actorLabel },
    state: r.state,
    details: r.details,
    createdAt: r.createdAt,
    completedAt: r.completedAt,
  };
}

/** A workspace's entries, newest first, a page at a time (`before`: an entry's createdAt). */
export async function listAuditEvents(
  db: Db,
  workspaceId: string,
  q: { projectId?: string | undefined; action?: AuditAction | undefined; before?: string | undefined; limit: number },
): Promise<AuditRow[]> {
  return db
    .select()
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.workspaceId, workspaceId),
        q.projectId ? eq(auditEvents.projectId, q.projectId) : undefined,
        q.action ? eq(auditEvents.action, q.action) : undefined,
        q.before ? lt(auditEvents.createdAt, q.before) : undefined,
      ),
    )
    .orderBy(desc(auditEvents.createdAt))
    .limit(q.limit)
    .all();
}

export async function findAuditEvent(db: Db, workspaceId: string, id: string): Promise<AuditRow | undefined> {
  return db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.id, id), eq(auditEvents.workspaceId, workspaceId)))
    .get();
}
