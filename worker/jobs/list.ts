import { z } from "zod";
import { JOB_STATUSES, SERVICE_TYPES } from "../../contracts/service-types";
import type { Job } from "../../contracts/job";
import { csvListOf, intQueryParam } from "../http/query-lists";

/** Query of GET /v1/jobs, as the spec's table lists it. */
export const ListJobsQuerySchema = z.strictObject({
  page: intQueryParam(1, 1, 1_000_000, "page"),
  limit: intQueryParam(20, 1, 100, "limit"),
  jobId: z.string().min(1).max(128).optional(),
  customerJobRef: z.string().min(1).max(120).optional(),
  user: z.string().min(1).max(256).optional(),
  input: z.string().min(1).max(1024).optional(),
  statuses: csvListOf(JOB_STATUSES, "statuses").optional(),
  serviceTypes: csvListOf(SERVICE_TYPES, "serviceTypes").optional(),
  sort: z.enum(["jobId", "service", "status", "user", "created"]).default("created"),
  sortDir: z.enum(["asc", "desc"]).default("desc"),
});
export type ListJobsQuery = z.infer<typeof ListJobsQuerySchema>;

const SORT_COLUMN: Record<ListJobsQuery["sort"], string> = {
  jobId: "id",
  service: "service_type",
  status: "status",
  user: "created_by_label",
  created: "created_at",
};

/**
 * Substring match by instr(), not LIKE: D1 refuses LIKE patterns longer than 50 bytes ("LIKE or
 * GLOB pattern too complex"), and the filters accept up to 1024 characters. The search columns
 * are lower-cased at create, so lower-casing the needle makes the match ignore case.
 */
function containsLower(column: string, needle: string): { sql: string; arg: string } {
  return { sql: `instr(${column}, ?) > 0`, arg: needle.toLowerCase() };
}

export async function listJobs(db: D1Database, projectId: string, q: ListJobsQuery) {
  const where: string[] = ["project_id = ?"];
  const args: unknown[] = [projectId];
  if (q.jobId) {
    const c = containsLower("lower(id)", q.jobId);
    where.push(c.sql);
    args.push(c.arg);
  }
  if (q.customerJobRef) {
    where.push("customer_job_ref = ?");
    args.push(q.customerJobRef);
  }
  if (q.user) {
    const c = containsLower("user_search", q.user);
    where.push(c.sql);
    args.push(c.arg);
  }
  if (q.input) {
    const c = containsLower("input_search", q.input);
    where.push(c.sql);
    args.push(c.arg);
  }
  if (q.statuses?.length) {
    where.push(`status IN (${q.statuses.map(() => "?").join(",")})`);
    args.push(...q.statuses);
  }
  if (q.serviceTypes?.length) {
    where.push(`service_type IN (${q.serviceTypes.map(() => "?").join(",")})`);
    args.push(...q.serviceTypes);
  }
  const whereSql = where.join(" AND ");
  const dir = q.sortDir === "asc" ? "ASC" : "DESC";
  // id breaks ties so pages never overlap or skip rows.
  const order = `${SORT_COLUMN[q.sort]} ${dir}, id ${dir}`;
  const offset = (q.page - 1) * q.limit;
  const [count, rows] = await db.batch([
    db.prepare(`SELECT COUNT(*) AS total FROM jobs WHERE ${whereSql}`).bind(...args),
    db.prepare(`SELECT data FROM jobs WHERE ${whereSql} ORDER BY ${order} LIMIT ? OFFSET ?`).bind(...args, q.limit, offset),
  ]);
  const total = Number((count?.results[0] as { total: number } | undefined)?.total ?? 0);
  const data = (rows?.results as Array<{ data: string }>).map((r) => JSON.parse(r.data) as Job);
  return { data, pagination: { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit) } };
}
