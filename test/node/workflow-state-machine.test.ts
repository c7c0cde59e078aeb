import { describe, expect, it } from "vitest";
import { WORKFLOW_STATUSES, WORKFLOW_STEP_STATUSES } from "../../contracts/workflows";
import {
  nextStepStatus,
  nextWorkflowStatus,
  STEP_TRANSITIONS,
  stepFollowsJob,
  WORKFLOW_TRANSITIONS,
} from "../../durable-objects/workflow-state-machine";

describe("a workflow's moves", () => {
  it("an ended workflow moves no more, whatever happens", () => {
    for (const from of ["completed", "failed", "cancelled"] as const)
      for (const trigger of Object.keys(WORKFLOW_TRANSITIONS) as Array<keyof typeof WORKFLOW_TRANSITIONS>)
        expect(nextWorkflowStatus(from, trigger)).toBeNull();
  });

  it("a cancelled workflow ends cancelled however its steps ended", () => {
    expect(nextWorkflowStatus("running", "cancel")).toBe("cancelling");
    expect(nextWorkflowStatus("cancelling", "allStepsCompleted")).toBe("cancelled");
    expect(nextWorkflowStatus("cancelling", "stepsEndedNotAllCompleted")).toBe("cancelled");
  });

  it("a running workflow completes only when every step completed", () => {
    expect(nextWorkflowStatus("running", "allStepsCompleted")).toBe("completed");
    expect(nextWorkflowStatus("running", "stepsEndedNotAllCompleted")).toBe("failed");
  });

  it("the tables name only statuses the contract has", () => {
    const workflowMoves = Object.values(WORKFLOW_TRANSITIONS).flatMap((moves) => Object.entries(moves).flat());
    const stepMoves = Object.values(STEP_TRANSITIONS).flatMap((moves) => Object.entries(moves).flat());
    expect(workflowMoves.filter((s) => !(WORKFLOW_STATUSES as readonly string[]).includes(s))).toEqual([]);
    expect(stepMoves.filter((s) => !(WORKFLOW_STEP_STATUSES as readonly string[]).includes(s))).toEqual([]);
  });
});

describe("a step's moves", () => {
  it("only a waiting step is started, skipped or cancelled", () => {
    for (const from of WORKFLOW_STEP_STATUSES.filter((s) => s !== "waiting")) {
      expect(nextStepStatus(from, "dependenciesCompleted")).toBeNull();
      expect(nextStepStatus(from, "dependencyNotCompleted")).toBeNull();
      expect(nextStepStatus(from, "workflowCancelled")).toBeNull();
    }
  });

  it("a step with a job follows it until either ends, and never moves back from an end", () => {
    expect(stepFollowsJob("pending", "queued")).toBe("queued");
    expect(stepFollowsJob("processing", "failed")).toBe("failed");
    expect(stepFollowsJob("completed", "failed")).toBeNull();
    expect(stepFollowsJob("skipped", "queued")).toBeNull();
    expect(stepFollowsJob("queued", "queued")).toBeNull();
  });
});
