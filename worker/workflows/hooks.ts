import type { Job } from "../../contracts/job";
import type { Workflow } from "../../contracts/workflows";
import type { WorkflowWebhookMessage } from "../../durable-objects/messages";
import type { StepCreation, WorkflowHooks, WorkflowRun } from "../../durable-objects/workflow-hooks";
import type { Principal } from "../auth/principal";
import { eq } from "drizzle-orm";
import { getDb, type Db } from "../db/client";
import { apiKeys, workflowJobs } from "../db/schema";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { createJob } from "../jobs/create";
import { jobStub } from "../jobs/stubs";

/**
 * Whether the project key a workflow was made with has been revoked since: revoking a key stops
 * what it started from spending more. A console session's end (sign-out, expiry) is not a
 * revocation of what its person started, and a trigger's workflows belong to the project.
 */
async function revokedKey(db: Db, creator: Principal): Promise<boolean> {
  if (creator.keyKind !== "project" || !creator.keyId.startsWith("pak_")) return false;
  const row = await db.select({ revokedAt: apiKeys.revokedAt }).from(apiKeys).where(eq(apiKeys.id, creator.keyId)).get();
  return !row || row.revokedAt !== null;
}

/** The WorkflowDO's view of the Worker (durable-objects/workflow-hooks.ts): jobs are made by the ordinary create. */
export function workflowHooks(env: Env): WorkflowHooks {
  const db = getDb(env.DB);
  return {
    async createStepJob(
      workflow: Workflow,
      run: WorkflowRun,
      stepId: string,
      body: Record<string, unknown>,
      jobId: string,
    ): Promise<StepCreation> {
      const creator = run.creator as Principal;
      if (await revokedKey(db, creator))
        return {
          ok: false,
          retry: false,
          error: {
            code: "step_not_created",
            message: `the key that created the workflow (${creator.keyId}) was revoked: its later steps are not made`,
          },
        };
      // Noted before the job exists, so the job's end always finds its workflow (a job never made leaves a harmless row).
      await db.insert(workflowJobs).values({ jobId, workflowId: workflow.workflowId, stepId }).onConflictDoNothing();
      try {
        // The creator as the workflow stored it: the key (or the trigger) the workflow was made for.
        const job = await createJob(env, creator, body, undefined, undefined, { jobId });
        return { ok: true, job };
      } catch (err) {
        if (err instanceof ApiError && err.status < 500)
          return { ok: false, retry: false, error: { code: "step_not_created", message: `${err.code}: ${err.message}` } };
        return { ok: false, retry: true, error: { code: "step_not_created", message: err instanceof Error ? err.message : String(err) } };
      }
    },
    job: (jobId: string): Promise<Job | null> => jobStub(env, jobId).get(),
    async cancelJob(jobId: string, label: string): Promise<void> {
      await jobStub(env, jobId).cancel({ label, kind: "api_key", userId: null, apiKeyId: null });
    },
    async mirror(workflow: Workflow, version: number, triggerKey: string | null): Promise<void> {
      await env.DB.prepare(
        `INSERT INTO workflows (id, project_id, workspace_id, preset_id, status, trigger_key, data, version, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (id) DO UPDATE SET status = excluded.status, data = excluded.data, version = excluded.version, updated_at = excluded.updated_at
         WHERE excluded.version > workflows.version`,
      )
        .bind(
          workflow.workflowId,
          workflow.projectId,
          workflow.workspaceId,
          workflow.presetId,
          workflow.status,
          triggerKey,
          JSON.stringify(workflow),
          version,
          workflow.createdAt,
          workflow.updatedAt,
        )
        .run();
    },
    async sendEnded(workflow: Workflow): Promise<void> {
      const message: WorkflowWebhookMessage = {
        kind: "workflow",
        eventId: `msg_${workflow.workflowId}_end`,
        workflowId: workflow.workflowId,
        projectId: workflow.projectId,
        event: workflow.status as WorkflowWebhookMessage["event"],
        workflow,
        occurredAt: workflow.endedAt ?? workflow.updatedAt,
      };
      await env.WEBHOOK_QUEUE.send(message);
    },
  };
}
