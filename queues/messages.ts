import type { Job } from "../contracts/job";

/** Dispatch queue: "run step `stepIndex` of attempt `attempt` of this job". Duplicates are expected. */
export interface DispatchMessage {
  jobId: string;
  attempt: number;
  stepIndex: number;
}

/** Webhook queue: one status change of one job, delivered at least once. */
export interface WebhookMessage {
  /** Standard Webhooks `webhook-id`, the receiver's dedup key. */
  eventId: string;
  jobId: string;
  projectId: string;
  event: Job["status"];
  job: Job;
  occurredAt: string;
  /**
   * A replay (POST …/webhook-deliveries/{id}/replay) continues the event's attempt numbering after
   * the attempts already recorded, so every attempt stays listable; absent on a first delivery.
   */
  attemptOffset?: number;
}
