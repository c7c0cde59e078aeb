import { and, eq, inArray, lt } from "drizzle-orm";
import { effectiveDataPolicy } from "../../contracts/data-policy";
import { TERMINAL_STATUSES } from "../../contracts/service-types";
import { getDb } from "../db/client";
import { auditEvents, jobs, transcripts } from "../db/schema";
import type { Env } from "../env";
import { policyActor, unfinishedAuditEvents } from "./audit-log";
import { continueDeletion, deleteJob, deleteTranscript } from "./deletions";
import { jobsUsingTranscript } from "./scope";

/**
 * The retention sweep (the Cron Trigger's scheduled run; tests call it directly): deletions left
 * unfinished are carried on first, then each project's policy is applied: transcripts (with
 * everything made from them) older than `retentionDays`, finished jobs older than `jobRetentionDays`.
 * Bounded per run (`RETENTION_BUDGET`); what is left waits for the next run. Idempotent: what is
 * gone is not found again, and a transcript a running job uses is skipped until it is free.
 * Retention never deletes files in the customer's bucket (their bucket, their lifecycle rules).
 */

export const RETENTION_BUDGET = { resumed: 10, transcripts: 50, jobs: 200 } as const;

export interface RetentionRun {
  resumed: number;
  transcriptsDeleted: number;
  transcriptsInUse: number;
  jobsDeleted: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

export async function runRetention(env: Env, now: Date): Promise<RetentionRun> {
  const db = getDb(env.DB);
  const run: RetentionRun = { resumed: 0, transcriptsDeleted: 0, transcriptsInUse: 0, jobsDeleted: 0 };

  for (const audit of await unfinishedAuditEvents(db, RETENTION_BUDGET.resumed)) {
    try {
      await continueDeletion(env, audit);
      run.resumed += 1;
    } catch (err) {
      // One deletion that cannot go on (a job still running) does not hold up the others.
      console.error(JSON.stringify({ level: "warn", msg: "deletion not finished", auditEventId: audit.id, error: String(err) }));
    }
  }

  const withPolicy = await env.DB.prepare(
    `SELECT id, workspace_id, data_policy FROM projects
      WHERE deletion_started_at IS NULL AND data_policy IS NOT NULL
        AND (json_extract(data_policy, '$.retentionDays') IS NOT NULL OR json_extract(data_policy, '$.jobRetentionDays') IS NOT NULL)`,
  ).all<{ id: string; workspace_id: string; data_policy: string }>();

  for (const p of withPolicy.results) {
    const policy = effectiveDataPolicy(JSON.parse(p.data_policy));
    if (policy.retentionDays !== null) {
      const left = RETENTION_BUDGET.transcripts - run.transcriptsDeleted;
      const cutoff = new Date(now.getTime() - policy.retentionDays * DAY_MS).toISOString();
      const old =
        left <= 0
          ? []
          : await db
              .select()
              .from(transcripts)
              .where(and(eq(transcripts.projectId, p.id), lt(transcripts.createdAt, cutoff)))
              .orderBy(transcripts.createdAt)
              .limit(left)
              .all();
      for (const t of old) {
        if ((await jobsUsingTranscript(env, t)).length > 0) {
          run.transcriptsInUse += 1;
          continue;
        }
        await deleteTranscript(env, policyActor(`retentionDays: ${policy.retentionDays}`), p.workspace_id, p.id, t.id, {
          deleteOutputs: false,
        });
        run.transcriptsDeleted += 1;
      }
    }
    if (policy.jobRetentionDays !== null) {
      const left = RETENTION_BUDGET.jobs - run.jobsDeleted;
      const cutoff = new Date(now.getTime() - policy.jobRetentionDays * DAY_MS).toISOString();
      const old =
        left <= 0
          ? []
          : await db
              .select({ id: jobs.id })
              .from(jobs)
              .where(and(eq(jobs.projectId, p.id), inArray(jobs.status, [...TERMINAL_STATUSES]), lt(jobs.updatedAt, cutoff)))
              .orderBy(jobs.updatedAt)
              .limit(left)
              .all();
      for (const j of old) {
        await deleteJob(env, policyActor(`jobRetentionDays: ${policy.jobRetentionDays}`), p.workspace_id, p.id, j.id, {
          deleteOutputs: false,
        });
        run.jobsDeleted += 1;
      }
    }
  }
  return run;
}

/** Runs a project's deletion on at once after it started (the request's waitUntil), as far as one batch goes. */
export async function runProjectDeletionNow(env: Env, auditEventId: string): Promise<void> {
  const db = getDb(env.DB);
  const audit = await db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.id, auditEventId), eq(auditEvents.state, "in_progress")))
    .get();
  if (audit) await continueDeletion(env, audit);
}
