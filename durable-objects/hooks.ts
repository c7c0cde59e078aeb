import type { Job } from "../contracts/job";
import type { StepApplied } from "../contracts/step-kit";
import type { StepSpec } from "../contracts/pipelines";
import type { Settings } from "../contracts/settings";
import type { WebhookMessage } from "./messages";

/**
 * What the JobDO asks of the services, without knowing any of them: the Worker implements this
 * over its service modules (worker/jobs/job-hooks.ts) and hands it to the DO class it exports.
 */
export interface JobHooks {
  settings(): Promise<Settings>;
  /** Validates and stores a step's result (the step's service sink). */
  applyStepResult(job: Job, step: StepSpec, result: Record<string, unknown>): Promise<StepApplied>;
  /** Once, when the job reaches a terminal status: records left final, scratch artifacts deleted. */
  jobEnded(job: Job, artifacts: readonly string[]): Promise<void>;
  /** A webhook event the queue never took (refused too often, or too large): recorded as a failed delivery with `reason`. */
  webhookUndeliverable(message: WebhookMessage, reason: string): Promise<void>;
}
