import { eq } from "drizzle-orm";
import type { Job } from "../../contracts/job";
import type { Db } from "../db/client";
import { workflowJobs } from "../db/schema";
import type { Env } from "../env";
import { workflowStub } from "./stubs";

/**
 * A job that ended tells the workflow that made it, if any (called from the JobDO's `jobEnded`
 * hook). A word lost here is not lost for good: the workflow reads its running jobs on an alarm.
 */
export async function tellWorkflowJobEnded(env: Env, db: Db, job: Job): Promise<void> {
  try {
    const row = await db.select({ workflowId: workflowJobs.workflowId }).from(workflowJobs).where(eq(workflowJobs.jobId, job.jobId)).get();
    if (row) await workflowStub(env, row.workflowId).jobChanged(job);
  } catch (err) {
    console.error(JSON.stringify({ level: "error", msg: "workflow: a job's end was not told", jobId: job.jobId, error: String(err) }));
  }
}
