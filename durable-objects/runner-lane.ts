import { newId } from "../contracts/ids";
import type { Priority } from "../contracts/service-types";
import { nowIso } from "../contracts/clock";

/**
 * The runner lane: the `runner_tasks` table, one function per operation (as graphile-worker does).
 * A row is `available` until a runner claims it (`leased`, with the claim's token), then `done` or
 * `dead`. The JobDO owns the lease's timing; these statements only keep the lane consistent, each
 * one conditional statement (D1 has no interactive transactions).
 */

export interface ClaimedTask {
  id: string;
  job_id: string;
  attempt: number;
  step_index: number;
}

const LANE_RANK: Record<Priority, number> = { high: 0, normal: 1, low: 2 };

export interface LaneTask {
  jobId: string;
  attempt: number;
  stepIndex: number;
  handler: string;
  lane: Priority;
}

/**
 * Puts a step in its lane, as a statement (the JobDO's create batches it with the job's row); it
 * answers the task's id. Idempotent on (job, attempt, step); a released (dead, once leased) row
 * becomes available again.
 */
export function enqueueTaskStatement(db: Pick<D1Database, "prepare">, t: LaneTask): D1PreparedStatement {
  const at = nowIso();
  return db
    .prepare(
      `INSERT INTO runner_tasks (id, job_id, attempt, step_index, handler, lane, lane_rank, state, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'available', ?, ?)
       ON CONFLICT (job_id, attempt, step_index) DO UPDATE SET
         state = CASE WHEN runner_tasks.state = 'dead' AND runner_tasks.lease_token IS NOT NULL THEN 'available' ELSE runner_tasks.state END,
         lease_token = CASE WHEN runner_tasks.state = 'dead' THEN NULL ELSE runner_tasks.lease_token END,
         updated_at = excluded.updated_at
       RETURNING id`,
    )
    .bind(newId("runnerTask"), t.jobId, t.attempt, t.stepIndex, t.handler, t.lane, LANE_RANK[t.lane], at, at);
}

/** Puts a step in its lane (enqueueTaskStatement, run alone) and answers the task's id. */
export async function enqueueTask(db: D1Database, t: LaneTask): Promise<string> {
  const row = await enqueueTaskStatement(db, t).first<{ id: string }>();
  if (!row) throw new Error("runner task insert returned no row");
  return row.id;
}

/**
 * One atomic statement: the best available task (lane, then age) among the runner's handlers and
 * lanes, and, for a token scoped to workspaces, among those workspaces' jobs, leased with `token`
 * and recorded as held by the runner token `runnerTokenId`.
 */
export async function claimTask(
  db: D1Database,
  c: {
    runnerId: string;
    runnerTokenId: string;
    lanes: readonly string[];
    handlers: readonly string[];
    /** Null: any workspace's jobs. */
    workspaces: readonly string[] | null;
    token: string;
  },
): Promise<ClaimedTask | null> {
  const marks = (n: number) => Array.from({ length: n }, () => "?").join(",");
  const inWorkspaces = c.workspaces
    ? `AND EXISTS (SELECT 1 FROM jobs WHERE jobs.id = runner_tasks.job_id AND jobs.workspace_id IN (${marks(c.workspaces.length)}))`
    : "";
  return db
    .prepare(
      `UPDATE runner_tasks SET state = 'leased', lease_token = ?, runner_id = ?, runner_token_id = ?, updated_at = ?
       WHERE id = (
         SELECT id FROM runner_tasks
         WHERE state = 'available' AND handler IN (${marks(c.handlers.length)}) AND lane IN (${marks(c.lanes.length)}) ${inWorkspaces}
         ORDER BY lane_rank ASC, created_at ASC LIMIT 1
       ) AND state = 'available'
       RETURNING id, job_id, attempt, step_index`,
    )
    .bind(c.token, c.runnerId, c.runnerTokenId, nowIso(), ...c.handlers, ...c.lanes, ...(c.workspaces ?? []))
    .first<ClaimedTask>();
}

/** Records the lease's expiry on the row (for operators reading the lane; the JobDO enforces it). */
export async function extendTask(db: D1Database, taskId: string, leaseUntil: string): Promise<void> {
  await db
    .prepare("UPDATE runner_tasks SET lease_until = ?, updated_at = ? WHERE id = ? AND state = 'leased'")
    .bind(leaseUntil, nowIso(), taskId)
    .run();
}

export async function completeTask(db: D1Database, taskId: string): Promise<void> {
  await db.prepare("UPDATE runner_tasks SET state = 'done', updated_at = ? WHERE id = ?").bind(nowIso(), taskId).run();
}

/** The task ended without success (failed, cancelled, stale at claim): never leased again. */
export async function failTask(db: D1Database, taskId: string): Promise<void> {
  await db.prepare("UPDATE runner_tasks SET state = 'dead', updated_at = ? WHERE id = ?").bind(nowIso(), taskId).run();
}

/** Given back by a runner shutting down; `enqueueTask` for the same attempt and step makes it available again. */
export const releaseTask = failTask;

/** The lease ran out (runner lost); the retry, if any, is a new attempt and so a new row. */
export const expireTask = failTask;

/** A job that will not run its queued step (cancelled before a runner took it): keep the lane clean. */
export async function dropAvailableTasks(db: D1Database, jobId: string): Promise<void> {
  await db
    .prepare("UPDATE runner_tasks SET state = 'dead', updated_at = ? WHERE job_id = ? AND state = 'available'")
    .bind(nowIso(), jobId)
    .run();
}

/** Which job a task belongs to (routes find the JobDO this way). */
export async function jobOfTask(db: D1Database, taskId: string): Promise<string | null> {
  const row = await db.prepare("SELECT job_id FROM runner_tasks WHERE id = ?").bind(taskId).first<{ job_id: string }>();
  return row?.job_id ?? null;
}
