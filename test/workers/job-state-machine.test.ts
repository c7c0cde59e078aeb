import { describe, expect, it } from "vitest";
import { JOB_STATUSES, type JobStatus } from "../../contracts/service-types";
import { nextStatus, TRANSITIONS, type Trigger } from "../../durable-objects/job-state-machine";

/** The spec's "States and transitions" table, row by row. */
const SPEC_ROWS: Array<[JobStatus, Trigger, JobStatus]> = [
  ["pending", "cancel", "cancelled"],
  ["queued", "cancel", "cancelled"],
  ["processing", "cancel", "cancelling"],
  ["cancelling", "stageBoundaryCancel", "cancelled"],
  ["cancelling", "cancel", "cancelling"],
  ["cancelled", "cancel", "cancelled"],
  ["processing", "attemptFailedRetry", "queued"],
  ["processing", "attemptFailedFinal", "failed"],
  ["processing", "lastStepSucceeded", "completed"],
];

describe("job state machine", () => {
  it.each(SPEC_ROWS)("%s --%s--> %s", (from, trigger, to) => {
    expect(nextStatus(from, trigger)).toBe(to);
  });

  it.each(["completed", "failed"] as const)("a cancel on %s is refused (the API answers 409 conflict)", (from) => {
    expect(nextStatus(from, "cancel")).toBeNull();
  });

  it("terminal statuses have no way out", () => {
    for (const trigger of Object.keys(TRANSITIONS) as Trigger[]) {
      for (const from of ["completed", "failed"] as const) expect(nextStatus(from, trigger)).toBeNull();
      if (trigger !== "cancel") expect(nextStatus("cancelled", trigger)).toBeNull();
    }
  });

  it("only the implicit moves pending→queued and queued→processing are added to the spec's table", () => {
    expect(nextStatus("pending", "enqueued")).toBe("queued");
    expect(nextStatus("queued", "started")).toBe("processing");
    expect(nextStatus("pending", "started")).toBeNull();
    expect(nextStatus("queued", "lastStepSucceeded")).toBeNull();
  });

  it("every target of the table is a known status", () => {
    for (const row of Object.values(TRANSITIONS)) for (const to of Object.values(row)) expect(JOB_STATUSES).toContain(to);
  });

  it("a cancel requested while processing wins over whatever the attempt does next", () => {
    for (const trigger of ["stepSucceeded", "lastStepSucceeded", "attemptFailedRetry", "attemptFailedFinal", "released"] as const) {
      expect(nextStatus("cancelling", trigger)).toBe("cancelled");
    }
  });
});
