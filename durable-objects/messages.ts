import type { Job } from "../contracts/job";
import type { Workflow } from "../contracts/workflows";

/**
 * Queue messages carry what their consumer needs, never a whole job input: a Queue message over
 * 128 KB never enqueues, and an `s3_presigned` job's input alone can approach 1 MiB.
 */

/** Dispatch queue: "run step `stepIndex` of attempt `attempt` of this job". Ids only; duplicates are expected. */
export interface DispatchMessage {
  jobId: string;
  attempt: number;
  stepIndex: number;
}

/** The Job as a webhook event saw it, without `input`: the input never changes, so the consumer reads it from D1. */
export type JobSnapshot = Omit<Job, "input">;

export function jobSnapshot(job: Job): JobSnapshot {
  const { input: _input, ...snapshot } = job;
  return structuredClone(snapshot);
}

/** Webhook queue: one status change of one job, delivered at least once. */
export interface WebhookMessage {
  /** Standard Webhooks `webhook-id`, the receiver's dedup key. */
  eventId: string;
  jobId: string;
  projectId: string;
  event: Job["status"];
  /** The job at that moment; the payload's `job` is this plus the stored input. */
  job: JobSnapshot;
  occurredAt: string;
  /**
   * A replay (POST …/webhook-deliveries/{id}/replay) continues the event's attempt numbering after
   * the attempts already recorded, so every attempt stays listable; absent on a first delivery.
   */
  attemptOffset?: number;
  /** A replay's own, smaller attempt budget; absent on a first delivery (settings.webhooks.maxAttempts). */
  maxAttempts?: number;
}

/** Webhook queue: the one event of a workflow that ended (issue 26), delivered at least once. */
export interface WorkflowWebhookMessage {
  kind: "workflow";
  eventId: string;
  workflowId: string;
  projectId: string;
  event: "completed" | "failed" | "cancelled";
  /** The workflow as it ended (small: step views, no job inputs). */
  workflow: Workflow;
  occurredAt: string;
  attemptOffset?: number;
  maxAttempts?: number;
}

/** Whatever the webhook queue carries: a job's status change (no `kind`, as sent before workflows) or a workflow's end. */
export type AnyWebhookMessage = WebhookMessage | WorkflowWebhookMessage;

export const isWorkflowEvent = (m: AnyWebhookMessage): m is WorkflowWebhookMessage => "kind" in m && m.kind === "workflow";

/** The job or workflow an event is about: where its deliveries are listed. */
export const eventSubjectId = (m: AnyWebhookMessage): string => (isWorkflowEvent(m) ? m.workflowId : m.jobId);
