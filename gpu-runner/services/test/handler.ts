import { writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { StepFailure } from "../../../contracts/step-failure";
import type { StepHandler } from "../../handler";

/**
 * The test service's runner step (contracts/services/test.ts), registered only when
 * RUNNER_ENABLE_TEST_HANDLERS is true. They let the job
 * machinery (retries, cancel, a runner killed mid-stage, shutdown) be exercised end to end
 * without ffmpeg or models.
 *
 * `test.work` params (all optional):
 *  - `stageMs` (number, default 50): how long each stage sleeps (abortable by ctx.signal);
 *  - `failCode` (string, default `processing_failed`), `failRetryable` (boolean, default true),
 *    `failAttempts` (number, default 0): while `task.attempt < failAttempts`, the first stage
 *    (or `failStage` when given) fails with that code;
 *  - `failStage` (string): the stage that fails.
 *  - `artifact` (boolean): write a small object under the task's scratch prefix and name it in the
 *    result (`artifactKey`, `artifacts`), as a real step hands a large artifact to a later one.
 * Each stage writes a small file into the work directory, so cleanup is observable. Every artifact
 * named by an earlier step's output is read back from the bucket (`readArtifacts`).
 * Result: `{ echo: ctx.input, attempt: task.attempt, runnerId }`, plus `sawOutputs` and
 * `readArtifacts` when earlier steps handed it outputs.
 */

const num = (v: unknown, def: number): number => (typeof v === "number" && Number.isFinite(v) ? v : def);
const bool = (v: unknown, def: boolean): boolean => (typeof v === "boolean" ? v : def);
const str = (v: unknown, def: string): string => (typeof v === "string" && v !== "" ? v : def);

export function createTestHandler(opts: { runnerId: string }): StepHandler {
  return async ({ task, input, outputs, report, workDir, signal, openStorage }) => {
    const p = task.step.params;
    const stageMs = num(p.stageMs, 50);
    const failAttempts = num(p.failAttempts, 0);
    const failing = task.attempt < failAttempts;
    const failStage = str(p.failStage, task.step.stages[0] ?? "");
    for (const stage of task.step.stages) {
      await report.stage(
        stage,
        async () => {
          await sleep(stageMs, undefined, { signal });
          await writeFile(path.join(workDir, `${stage}.txt`), `${task.taskId} ${stage}\n`);
          if (failing && stage === failStage) {
            throw new StepFailure(
              str(p.failCode, "processing_failed"),
              `test.work: failing attempt ${task.attempt} of ${failAttempts}`,
              bool(p.failRetryable, true),
            );
          }
          return { ms: stageMs };
        },
        (r) => r,
      );
    }
    const s3 = task.storage ? await openStorage() : null;
    const readArtifacts: Record<string, string> = {};
    for (const output of Object.values(outputs)) {
      const key = output?.["artifactKey"];
      if (typeof key === "string" && s3 && task.storage) readArtifacts[key] = await (await s3.getObject(task.storage.bucket, key)).text();
    }
    const earlier = Object.keys(outputs);
    const result = {
      echo: input,
      attempt: task.attempt,
      runnerId: opts.runnerId,
      ...(earlier.length > 0 ? { sawOutputs: earlier, readArtifacts } : {}),
    };
    if (p.artifact !== true || !s3 || !task.storage || !task.scratchPrefix) return result;
    const artifactKey = `${task.scratchPrefix}${task.step.name}-${task.attempt}.txt`;
    await s3.putObject(task.storage.bucket, artifactKey, `artifact of ${task.step.name} attempt ${task.attempt}`, "text/plain");
    return { ...result, artifactKey, artifacts: [artifactKey] };
  };
}
