import type { Job } from "../../contracts/job";
import type { StepSpec } from "../../contracts/pipelines";
import type { StepApplied } from "../../contracts/step-kit";
import type { JobHooks } from "../../durable-objects/hooks";
import { getDb } from "../db/client";
import type { Env } from "../env";
import { loadSettings } from "../platform/settings";
import { workerService } from "../services/index";
import { deletePresignedGrant } from "../storage/presigned";
import { deleteScratch } from "../storage/scratch";
import { recordUndeliverable } from "./webhook-deps";
import { tellWorkflowJobEnded } from "../workflows/notify";

/** The JobDO's view of the services (durable-objects/hooks.ts), over the Worker's service modules. */
export function jobHooks(env: Env): JobHooks {
  const db = getDb(env.DB);
  return {
    settings: () => loadSettings(db),
    async applyStepResult(job: Job, step: StepSpec, result: Record<string, unknown>): Promise<StepApplied> {
      const sink = workerService(step.service).sinks[step.handler];
      if (!sink)
        return { ok: false, error: { code: "processing_failed", message: `no result handler for step ${step.name} of ${step.service}` } };
      return sink({ env, db, job, step }, result);
    },
    async jobEnded(job: Job, artifacts: readonly string[]): Promise<void> {
      // Whatever the service: an s3_presigned job's sealed URLs (signatures) never outlive it.
      await deletePresignedGrant(db, job.jobId);
      await workerService(job.serviceType).onEnded?.({ env, db }, job);
      // The job's records are final: the workflow's next step may start while the scratch is cleared.
      await tellWorkflowJobEnded(env, db, job);
      await deleteScratch(env, job, artifacts);
    },
    webhookUndeliverable: (message, reason) => recordUndeliverable(env, message, reason),
  };
}
