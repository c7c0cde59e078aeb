import type { JobStatus } from "../contracts/service-types";
import { isTerminal } from "../contracts/service-types";
import type { WorkflowStatus, WorkflowStepStatus } from "../contracts/workflows";

/**
 * Every status change a workflow and its steps can make, and no other (docs/api.md "Workflows").
 * The WorkflowDO assigns a status only through these tables; a trigger not listed for the current
 * status is refused (null).
 */

export type WorkflowTrigger = "cancel" | "allStepsCompleted" | "stepsEndedNotAllCompleted";

export const WORKFLOW_TRANSITIONS: Record<WorkflowTrigger, Partial<Record<WorkflowStatus, WorkflowStatus>>> = {
  // Running jobs stop gracefully: the workflow waits for them in `cancelling`.
  cancel: { running: "cancelling" },
  allStepsCompleted: { running: "completed", cancelling: "cancelled" },
  stepsEndedNotAllCompleted: { running: "failed", cancelling: "cancelled" },
};

export function nextWorkflowStatus(from: WorkflowStatus, trigger: WorkflowTrigger): WorkflowStatus | null {
  return WORKFLOW_TRANSITIONS[trigger][from] ?? null;
}

export type StepTrigger =
  /** Every step it waits for completed: its job is reserved and being made. */
  | "dependenciesCompleted"
  /** A step it waits for ended without completing. */
  | "dependencyNotCompleted"
  | "workflowCancelled"
  /** The create refused its job, or a template had no value. */
  | "notMade";

export const STEP_TRANSITIONS: Record<StepTrigger, Partial<Record<WorkflowStepStatus, WorkflowStepStatus>>> = {
  dependenciesCompleted: { waiting: "pending" },
  dependencyNotCompleted: { waiting: "skipped" },
  workflowCancelled: { waiting: "cancelled" },
  notMade: { pending: "failed" },
};

export function nextStepStatus(from: WorkflowStepStatus, trigger: StepTrigger): WorkflowStepStatus | null {
  return STEP_TRANSITIONS[trigger][from] ?? null;
}

/** A step whose job exists follows its job's status, until either has ended. */
export function stepFollowsJob(from: WorkflowStepStatus, job: JobStatus): WorkflowStepStatus | null {
  return from === job || isStepEnded(from) ? null : job;
}

export const isStepEnded = (s: WorkflowStepStatus): boolean => s === "skipped" || (s !== "waiting" && isTerminal(s));
