import type { Job } from "../contracts/job";

/**
 * The JobDO's writes of the queryable job row to D1 (the runner lane is durable-objects/runner-lane.ts).
 * Plain prepared statements: each is one conditional statement (D1 has no interactive transactions).
 */

export async function insertJobRow(
  db: D1Database,
  job: Job,
  version: number,
  search: { userSearch: string; inputSearch: string },
): Promise<void> {
  const ref = typeof job.userMetadata?.["customerJobRef"] === "string" ? (job.userMetadata["customerJobRef"] as string) : null;
  await db
    .prepare(
      `INSERT INTO jobs (id, workspace_id, project_id, service_type, status, priority, customer_job_ref, user_search, created_by_label, input_search, data, version, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
    )
    .bind(
      job.jobId,
      job.workspaceId,
      job.projectId,
      job.serviceType,
      job.status,
      job.priority,
      ref,
      search.userSearch,
      job.createdByLabel,
      search.inputSearch,
      JSON.stringify(job),
      version,
      job.createdAt,
      job.updatedAt,
    )
    .run();
}

/** Guarded by version so a delayed write can never roll the row back. */
export async function mirrorJobRow(db: D1Database, job: Job, version: number): Promise<void> {
  await db
    .prepare("UPDATE jobs SET status = ?, data = ?, version = ?, updated_at = ? WHERE id = ? AND version < ?")
    .bind(job.status, JSON.stringify(job), version, job.updatedAt, job.jobId, version)
    .run();
}
