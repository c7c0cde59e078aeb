import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib/api-client";
import type { Job } from "../../contracts/job";
import { consoleKey, runnerLogEvents, startE2E, type E2E } from "../support/e2e-stack";

/**
 * Stopping the local stack while a runner is mid-stage. Ctrl-C on `npm run dev` runs
 * `stack.close()`, whose first step is `stack.stopRunners()`: that step is driven here, so the
 * API is still up to check what became of the running step. The runner must get one signal and
 * its full grace, and the step must be released (or finished), never left to expire as
 * `runner_lost`.
 */

const STAGE_MS = 5_000;

let e: E2E;
beforeAll(async () => {
  e = await startE2E({
    runnerEnv: { RUNNER_ENABLE_TEST_HANDLERS: "true", RUNNER_POLL_MIN_MS: "100", RUNNER_POLL_MAX_MS: "300" },
    settings: {
      testPipelines: {
        transcription: [
          {
            name: "work",
            executor: "runner",
            handler: "test.work",
            stages: ["download", "probe", "transcribe"],
            params: { stageMs: STAGE_MS },
          },
        ],
      },
    },
  });
});
afterAll(async () => e?.close());
// Every test brings its own runners: none may be left idle to take the next test's job.
afterEach(async () => e?.stack.stopRunners());

async function submit(): Promise<Job> {
  const key = `in/${Date.now()}.mp4`;
  await e.s3.putObject(e.tenant.bucket, key, new TextEncoder().encode("stand-in media"), "video/mp4");
  return e.api<Job>("POST", "/v1/jobs", {
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: e.tenant.connectionId, bucket: e.tenant.bucket, sourceKey: key },
  });
}

const midStage = (jobId: string) =>
  e.waitForJobWhere(jobId, "a stage running", (j) => j.status === "processing" && j.currentStage !== null, 30_000);

async function attemptHistoryCodes(jobId: string): Promise<string[]> {
  const progress = await apiCall<{ attemptHistory: Array<{ error: { code: string } }> }>(
    e.stack.apiBaseUrl,
    "GET",
    `/v1/jobs/${jobId}/progress`,
    await consoleKey(e),
  );
  return progress.data.attemptHistory.map((a) => a.error.code);
}

describe("stopping the stack while a runner is mid-stage", () => {
  it("a step longer than the runner's grace is released: back to its lane, no attempt counted, and the next runner completes it", async () => {
    const stopping = e.stack.startRunner({ RUNNER_ID: "stopping-release", RUNNER_SHUTDOWN_GRACE_MS: "500" });
    const job = await submit();
    await midStage(job.jobId);

    await e.stack.stopRunners();

    expect(stopping.exitCode).toBe(0);
    const released = await e.api<Job>("GET", `/v1/jobs/${job.jobId}`);
    expect(released).toMatchObject({ status: "queued", attemptCount: 0, processingLeaseUntil: null, lastError: null });
    expect(await attemptHistoryCodes(job.jobId)).toEqual([]);
    const events = runnerLogEvents(e, "stopping-release");
    expect(events.filter((ev) => ev === "signal")).toHaveLength(1);
    expect(events).toContain("released");
    expect(events).not.toContain("exit_now");

    e.stack.startRunner({ RUNNER_ID: "next" });
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 60_000);
    expect(done.status).toBe("completed");
    expect(
      done.attemptCount,
      JSON.stringify({
        lastError: done.lastError,
        history: await attemptHistoryCodes(job.jobId),
        log: runnerLogEvents(e, "stopping-finish"),
      }),
    ).toBe(0);
    expect((done.resultSummary as { test: { runnerId: string } }).test.runnerId).toBe("next");
    expect(await attemptHistoryCodes(job.jobId)).toEqual([]);
  });

  it("a step that ends within the runner's grace is finished before the runner exits, even past 10 s", async () => {
    const stopping = e.stack.startRunner({ RUNNER_ID: "stopping-finish", RUNNER_SHUTDOWN_GRACE_MS: "30000" });
    const job = await submit();
    await midStage(job.jobId);
    const stoppedFrom = Date.now();

    await e.stack.stopRunners();

    expect(stopping.exitCode).toBe(0);
    // Three stages of STAGE_MS were left: the stack waited for the runner past a 10 s kill timer.
    expect(Date.now() - stoppedFrom).toBeGreaterThan(10_000);
    const done = await e.api<Job>("GET", `/v1/jobs/${job.jobId}`);
    expect(done.status).toBe("completed");
    expect(done.attemptCount).toBe(0);
    expect((done.resultSummary as { test: { runnerId: string } }).test.runnerId).toBe("stopping-finish");
    expect(await attemptHistoryCodes(job.jobId)).toEqual([]);
    const events = runnerLogEvents(e, "stopping-finish");
    expect(events.filter((ev) => ev === "signal")).toHaveLength(1);
    expect(events).not.toContain("released");
  });
});
