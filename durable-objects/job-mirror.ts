import type { Job } from "../contracts/job";

/**
 * The JobDO's writes of the queryable job row to D1 (the runner lane is durable-objects/runner-lane.ts).
 * Plain prepared statements: each is one conditional statement (D1 has no interactive transactions).
 * `db` is the object's D1 session (or the database): only `prepare` is needed.
 */
export type D1Statements = Pick<D1Database, "prepare">;

/** The job's first row, as a statement: the create sends it in one batch with the first step's lane row. Idempotent. */
export function insertJobRow(
  db: D1Statements,
  job: Job,
  version: number,
  search: { userSearch: string; inputSearch: string },
): D1PreparedStatement {
  const ref = typeof job.userMetadata?.["customerJobRef"] === "string" ? (job.userMetadata["customerJobRef"] as string) : null;
  return db
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
    );
}

/** Guarded by version so a delayed write can never roll the row back. */
export async function mirrorJobRow(db: D1Statements, job: Job, version: number): Promise<void> {
  await db
    .prepare("UPDATE jobs SET status = ?, data = ?, version = ?, updated_at = ? WHERE id = ? AND version < ?")
    .bind(job.status, JSON.stringify(job), version, job.updatedAt, job.jobId, version)
    .run();
}
