import { z } from "zod";
import { JOB_STATUSES, type JobStatus } from "../../contracts/service-types";
import { WORKFLOW_STATUSES, type Workflow } from "../../contracts/workflows";
import type { Env } from "../env";
import { notFound } from "../errors";
import { csvListOf, intQueryParam } from "../http/query-lists";
import { isStepEnded } from "../../durable-objects/workflow-state-machine";
import { workflowStub } from "./stubs";

/**
 * Reads of workflows. Its WorkflowDO is the authority (a read right after the create sees it); the
 * statuses of steps whose jobs are still running are read from the jobs' rows, which their JobDOs
 * keep current (the workflow itself only hears of a job's end).
 */
export async function loadWorkflow(env: Env, projectId: string, workflowId: string): Promise<Workflow> {
  const w = await workflowStub(env, workflowId).get();
  if (!w || w.projectId !== projectId)
    throw notFound(`workflow not found: ${workflowId}`, [{ path: "workflowId", issue: `notFound:${workflowId}` }]);
  return withLiveSteps(env.DB, w);
}

async function withLiveSteps(db: D1Database, w: Workflow): Promise<Workflow> {
  const running = w.steps.filter((s) => s.jobId && !isStepEnded(s.status));
  if (running.length === 0) return w;
  const ids = running.map((s) => s.jobId as string);
  const rows = await db
    .prepare(`SELECT id, status FROM jobs WHERE id IN (${ids.map(() => "?").join(",")})`)
    .bind(...ids)
    .all<{ id: string; status: JobStatus }>();
  const live = new Map(rows.results.filter((r) => (JOB_STATUSES as readonly string[]).includes(r.status)).map((r) => [r.id, r.status]));
  const runningIds = new Set(running.map((s) => s.id));
  return {
    ...w,
    // Only a step the workflow has not yet seen end takes its job's row status (never back from an end).
    steps: w.steps.map((s) => {
      const status = runningIds.has(s.id) && s.jobId ? live.get(s.jobId) : undefined;
      return status ? { ...s, status } : s;
    }),
  };
}

export const ListWorkflowsQuerySchema = z.strictObject({
  page: intQueryParam(1, 1, 1_000_000, "page"),
  limit: intQueryParam(20, 1, 100, "limit"),
  statuses: csvListOf(WORKFLOW_STATUSES, "statuses").optional(),
  presetId: z.string().min(1).max(64).optional(),
});
export type ListWorkflowsQuery = z.infer<typeof ListWorkflowsQuerySchema>;

/** GET /v1/workflows: newest first, paginated as GET /v1/jobs is. */
export async function listWorkflows(db: D1Database, projectId: string, q: ListWorkflowsQuery) {
  const where = ["project_id = ?"];
  const args: unknown[] = [projectId];
  if (q.statuses?.length) {
    where.push(`status IN (${q.statuses.map(() => "?").join(",")})`);
    args.push(...q.statuses);
  }
  if (q.presetId) {
    where.push("preset_id = ?");
    args.push(q.presetId);
  }
  const w = where.join(" AND ");
  const [count, rows] = await db.batch([
    db.prepare(`SELECT COUNT(*) AS total FROM workflows WHERE ${w}`).bind(...args),
    db
      .prepare(`SELECT data FROM workflows WHERE ${w} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
      .bind(...args, q.limit, (q.page - 1) * q.limit),
  ]);
  const total = Number((count?.results[0] as { total: number } | undefined)?.total ?? 0);
  const data = (rows?.results as Array<{ data: string }>).map((r) => JSON.parse(r.data) as Workflow);
  return { data, pagination: { page: q.page, limit: q.limit, total, totalPages: Math.ceil(total / q.limit) } };
}
