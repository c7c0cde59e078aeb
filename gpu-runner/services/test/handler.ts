import { writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { StepFailure, type StepHandler } from "../../handler";

/**
 * Test-only handlers, registered only when RUNNER_ENABLE_TEST_HANDLERS is true. They let the job
 * machinery (retries, cancel, a runner killed mid-stage, shutdown) be exercised end to end
 * without ffmpeg or models.
 *
 * `test.work` params (all optional):
 *  - `stageMs` (number, default 50): how long each stage sleeps (abortable by ctx.signal);
 *  - `failCode` (string, default `processing_failed`), `failRetryable` (boolean, default true),
 *    `failAttempts` (number, default 0): while `task.attempt < failAttempts`, the first stage
 *    (or `failStage` when given) fails with that code;
 *  - `failStage` (string): the stage that fails.
 * Each stage writes a small file into the work directory, so cleanup is observable.
 * Result: `{ echo: task.input, attempt: task.attempt, runnerId }`.
 */

const num = (v: unknown, def: number): number => (typeof v === "number" && Number.isFinite(v) ? v : def);
const bool = (v: unknown, def: boolean): boolean => (typeof v === "boolean" ? v : def);
const str = (v: unknown, def: string): string => (typeof v === "string" && v !== "" ? v : def);

export function createTestHandlers(opts: { runnerId: string }): Record<string, StepHandler> {
  const work: StepHandler = async ({ task, report, workDir, signal }) => {
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
    return { echo: task.input, attempt: task.attempt, runnerId: opts.runnerId };
  };
  return { "test.work": work };
}
