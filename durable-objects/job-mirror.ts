import type { Job } from "../contracts/job";
import { newId } from "../contracts/ids";
import type { Priority } from "../contracts/service-types";
import { nowIso } from "../worker/platform/clock";

/**
 * The JobDO's writes to D1: the queryable job row and the runner lane. Plain prepared statements
 * because each is one conditional statement (D1 has no interactive transactions).
 */

export async function insertJobRow(db: D1Database, job: Job, version: number, search: { userSearch: string; inputSearch: string }): Promise<void> {
  const ref = typeof job.userMetadata?.["customerJobRef"] === "string" ? (job.userMetadata["customerJobRef"] as string) : null;
  await db
    .prepare(
      `INSERT INTO jobs (id, workspace_id, project_id, service_type, status, priority, customer_job_ref, user_search, created_by_label, input_search, data, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    )
    .bind(job.jobId, job.workspaceId, job.projectId, job.serviceType, job.status, job.priority, ref, search.userSearch, job.createdByLabel, search.inputSearch, JSON.stringify(job), version, job.createdAt, job.updatedAt)
    .run();
}

/** Guarded by version so a delayed write can never roll the row back. */
export async function mirrorJobRow(db: D1Database, job: Job, version: number): Promise<void> {
  await db
    .prepare("UPDATE jobs SET status = ?, data = ?, version = ?, updated_at = ? WHERE id = ? AND version < ?")
    .bind(job.status, JSON.stringify(job), version, job.updatedAt, job.jobId, version)
    .run();
}

const LANE_RANK: Record<Priority, number> = { high: 0, normal: 1, low: 2 };

/** Idempotent on (job, attempt, step): a duplicate dispatch finds the existing row. */
export async function enqueueRunnerTask(db: D1Database, t: { jobId: string; attempt: number; stepIndex: number; handler: string; lane: Priority }): Promise<string> {
  const now = nowIso();
  const row = await db
    .prepare(
      `INSERT INTO runner_tasks (id, job_id, attempt, step_index, handler, lane, lane_rank, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'available', ?, ?)
       ON CONFLICT (job_id, attempt, step_index) DO UPDATE SET
         state = CASE WHEN runner_tasks.state = 'dead' AND runner_tasks.lease_token IS NOT NULL THEN 'available' ELSE runner_tasks.state END,
         lease_token = CASE WHEN runner_tasks.state = 'dead' THEN NULL ELSE runner_tasks.lease_token END,
         updated_at = excluded.updated_at
       RETURNING id`,
    )
    .bind(newId("runnerTask"), t.jobId, t.attempt, t.stepIndex, t.handler, t.lane, LANE_RANK[t.lane], now, now)
    .first<{ id: string }>();
  if (!row) throw new Error("runner task insert returned no row");
  return row.id;
}

export async function markRunnerTask(db: D1Database, taskId: string, state: "done" | "dead"): Promise<void> {
  if (!taskId.startsWith("rtk_")) return;
  await db.prepare("UPDATE runner_tasks SET state = ?, updated_at = ? WHERE id = ?").bind(state, nowIso(), taskId).run();
}
