import type { Job, JobError } from "../contracts/job";
import type { Workflow } from "../contracts/workflows";

/** A step as the workflow will create it: its job body, templates of earlier steps still in place. */
export interface PlannedStep {
  id: string;
  dependsOn: string[];
  body: Record<string, unknown>;
}

/** What creating the workflow's jobs needs beyond its public view. */
export interface WorkflowRun {
  /** Who the jobs are made for (the Worker's Principal, opaque here): the key that made the workflow, or the trigger. */
  creator: unknown;
  steps: PlannedStep[];
  /** `trigger_key` of its D1 row (null unless an upload started it). */
  triggerKey: string | null;
  /** SHA-256 of the create's body when an Idempotency-Key named the workflow: a repeat with another body is refused. */
  requestHash: string | null;
}

export type StepCreation = { ok: true; job: Job } | { ok: false; error: JobError; retry: boolean };

/**
 * What the WorkflowDO asks of the Worker (worker/workflows/hooks.ts), without knowing the services:
 * making a step's job through the ordinary create, reading and cancelling jobs, mirroring to D1.
 */
export interface WorkflowHooks {
  /** Makes the step's job with the id the workflow reserved for it; `retry` when the refusal may pass (not a 4xx). */
  createStepJob(workflow: Workflow, run: WorkflowRun, stepId: string, body: Record<string, unknown>, jobId: string): Promise<StepCreation>;
  /** A job as its JobDO holds it, or null. */
  job(jobId: string): Promise<Job | null>;
  cancelJob(jobId: string, label: string): Promise<void>;
  /** Writes the workflow's D1 row (a newer `version` only). */
  mirror(workflow: Workflow, version: number, triggerKey: string | null): Promise<void>;
  /** The one event of a workflow that ended, to the webhook queue. */
  sendEnded(workflow: Workflow): Promise<void>;
}
