import { describe, expect, it } from "vitest";
import { formatElapsed, progressBar, stageFraction } from "../../../sdk/cli/progress";

describe("progress display parts", () => {
  it("elapsed time reads mm:ss under an hour and h:mm:ss above", () => {
    expect([formatElapsed(65_000), formatElapsed(3_725_000)]).toEqual(["01:05", "1:02:05"]);
  });

  it("the bar fills in proportion and shows the percentage", () => {
    expect(progressBar(0.5, 10)).toBe("[#####-----]  50%");
  });

  it("a stage that reports details.fraction gets a bar; one that does not gets none", () => {
    const at = "2026-11-20T10:00:00.000Z";
    const view = (details?: Record<string, unknown>) => ({
      currentStage: "transcribe_chunk",
      attemptHistory: [],
      progress: [{ stage: "transcribe_chunk", event: "started" as const, at, ...(details ? { details } : {}) }],
    });
    expect([stageFraction(view({ fraction: 0.4 })), stageFraction(view())]).toEqual([0.4, null]);
  });
});
