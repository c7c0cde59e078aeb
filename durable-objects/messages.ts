import type { Job } from "../contracts/job";

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
