import { testRunnerStep } from "../../contracts/services/test";
import { StepFailure } from "../../contracts/step-failure";
import { validatedSink } from "./shared/step-result";
import { requireScratchKeys } from "./shared/result-checks";
import { defineWorkerService, runnerBase, type WorkerStepHandler } from "./types";

/**
 * The machinery's test service (contracts/services/test.ts), defined like any other: its result
 * sink, its in-Worker step and the settings its runner steps receive. Its steps run only in test
 * pipelines (ALLOW_TEST_PIPELINES=true); no client can create a `test` job.
 */

/** Walks the step's stages, failing while attempt < failAttempts; echoes what it saw. */
const work: WorkerStepHandler = async ({ job, step, attempt, outputs, report }) => {
  const failAttempts = Number(step.params["failAttempts"] ?? 0);
  for (const name of step.stages) {
    await report.stage(name, async () => {
      if (attempt < failAttempts) {
        throw new StepFailure(
          String(step.params["failCode"] ?? "processing_failed"),
          `test failure on attempt ${attempt}`,
          step.params["failRetryable"] !== false,
        );
      }
    });
  }
  const earlier = Object.keys(outputs);
  return { echo: job.input, attempt, executor: "worker", ...(earlier.length > 0 ? { sawOutputs: earlier } : {}) };
};

export const testWorker = defineWorkerService<"test">({
  meter: null,
  resolve: async () => {
    throw new Error("test jobs are not created through the API");
  },
  sinks: {
    // The echo is the step's output for later steps; the summary keeps the last step's echo under `test`.
    "test.work": validatedSink(testRunnerStep.result, "test.work", async (_ctx, raw) => {
      const { artifacts, ...rest } = raw;
      return {
        ok: true,
        summary: { test: raw },
        output: rest,
        ...(Array.isArray(artifacts) ? { artifacts: artifacts.filter((k): k is string => typeof k === "string") } : {}),
      };
    }),
  },
  // Scratch objects named as artifacts are deleted when the job ends: only the job's own.
  resultChecks: {
    "test.work": ({ job }, raw) => {
      if (Array.isArray(raw["artifacts"])) requireScratchKeys(job, raw["artifacts"].map(String), "result.artifacts");
    },
  },
  workerSteps: { "test.work": work },
  runnerSettings: runnerBase,
});
