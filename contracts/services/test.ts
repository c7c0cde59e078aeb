import { z } from "zod";
import { COMMON_FAILURE_CODES, defineService, defineStep } from "./types";

/**
 * `test`: the machinery's own service, defined exactly like a real one. Its steps cost nothing and
 * are steered by params (how long each stage takes, which attempt fails, with which code), so the
 * job machinery (retries, cancel between steps, outputs passed from step to step, runner failover)
 * is proven before real multi-step services rely on it. Its steps run only where test pipelines are
 * enabled (ALLOW_TEST_PIPELINES on the Worker, RUNNER_ENABLE_TEST_HANDLERS on a runner); a test
 * puts them in place of a real service type's pipeline through the `testPipelines` setting.
 *
 * Step params (all optional): `stageMs`, `failAttempts` (fail while attempt < n), `failCode`,
 * `failRetryable`, `failStage`, and `artifact` (a runner step writes a scratch object and names it
 * in its output; a later runner step reads every artifact named by earlier steps).
 */

const TestResultSchema = z.record(z.string(), z.unknown());

export const TEST_STAGES = ["prepare", "work", "finish"] as const;

// Test pipelines name their own stages (settings `testPipelines`), so the stage type is any string.
export const testRunnerStep = defineStep({
  name: "work",
  executor: "runner",
  handler: "test.work",
  stages: TEST_STAGES as readonly string[],
  result: TestResultSchema,
});
export const testWorkerStep = defineStep({
  name: "work_in_worker",
  executor: "worker",
  handler: "test.work",
  stages: TEST_STAGES as readonly string[],
  result: TestResultSchema,
});

/**
 * Any record, on purpose: a test pipeline runs the test steps in place of another service type's,
 * on the input that type's `resolve()` stored (a transcription's, an indexer's, …), and echoes it.
 */
const TestStoredSchema = z.record(z.string(), z.unknown());

export const testService = defineService({
  serviceType: "test",
  input: z.record(z.string(), z.unknown()),
  stored: TestStoredSchema,
  stages: TEST_STAGES,
  steps: [testRunnerStep, testWorkerStep],
  failureCodes: [...COMMON_FAILURE_CODES, "test_failure"],
  nonRetryableCodes: [],
});
