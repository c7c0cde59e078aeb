import type { JobStatus } from "../contracts/service-types";

/**
 * Every status change a job can make, and no other: the spec's "States and transitions" table
 * plus the two moves it leaves implicit (pending → queued once on the queue, queued → processing
 * when a runner or the queue consumer starts the work). A trigger not listed for the current
 * status is refused; the JobDO never assigns `status` any other way.
 */
export type Trigger =
  | "enqueued"
  | "started"
  | "cancel"
  | "stageBoundaryCancel"
  | "stepSucceeded"
  | "lastStepSucceeded"
  | "attemptFailedRetry"
  | "attemptFailedFinal"
  | "released"
  | "dispatchAbandoned";

export const TRANSITIONS: Record<Trigger, Partial<Record<JobStatus, JobStatus>>> = {
  enqueued: { pending: "queued" },
  started: { queued: "processing", processing: "processing" },
  // Graceful cancel: idle jobs stop at once, running ones after the current pipeline stage.
  cancel: { pending: "cancelled", queued: "cancelled", processing: "cancelling", cancelling: "cancelling", cancelled: "cancelled" },
  // The worker finished its current stage while cancelling (ack from the runner, a step or attempt ending).
  stageBoundaryCancel: { cancelling: "cancelled" },
  stepSucceeded: { processing: "processing", cancelling: "cancelled" },
  lastStepSucceeded: { processing: "completed", cancelling: "cancelled" },
  attemptFailedRetry: { processing: "queued", cancelling: "cancelled" },
  attemptFailedFinal: { processing: "failed", cancelling: "cancelled" },
  // A runner gave its lease back (shutdown): the work returns to its lane without a failed attempt.
  released: { processing: "queued", cancelling: "cancelled" },
  // The dispatch queue gave up on starting the job's current step (its dead-letter queue): nothing
  // else would ever start it, so the waiting job fails instead of waiting for ever.
  dispatchAbandoned: { pending: "failed", queued: "failed", cancelling: "cancelled" },
};

export function nextStatus(from: JobStatus, trigger: Trigger): JobStatus | null {
  return TRANSITIONS[trigger][from] ?? null;
}
