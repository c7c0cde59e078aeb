import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib/api-client";
import { stopChild } from "../../scripts/lib/stack";
import type { Job } from "../../contracts/job";
import { consoleKey, startE2E, type E2E } from "../support/e2e-stack";

/** The promise: a runner that dies mid-stage has its work resumed elsewhere within this. */
const RECOVERY_MS = 30_000;

let e: E2E;
beforeAll(async () => {
  // The default lease, heartbeat and retry delays: recovery time is what an operator gets.
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
            params: { stageMs: 1500 },
          },
        ],
      },
    },
  });
});
afterAll(async () => e?.close());

async function submit(): Promise<Job> {
  const key = `in/${Date.now()}.mp4`;
  await e.s3.putObject(e.tenant.bucket, key, new TextEncoder().encode("stand-in media"), "video/mp4");
  return e.api<Job>("POST", "/v1/jobs", {
    serviceType: "transcription",
    input: { sourceType: "s3_direct", connectionId: e.tenant.connectionId, bucket: e.tenant.bucket, sourceKey: key },
  });
}

describe("runners on the real stack", () => {
  it("a runner killed with SIGKILL mid-stage loses its lease (runner_lost) and another runner resumes the work within 30 s", async () => {
    const doomed = e.stack.startRunner({ RUNNER_ID: "doomed" });
    const job = await submit();
    await e.waitForJob(job.jobId, ["processing"], 30_000);
    // Started once the job is leased, so it cannot take the first attempt; it idles until then.
    e.stack.startRunner({ RUNNER_ID: "survivor" });
    await stopChild(doomed, "SIGKILL");
    const killedAt = Date.now();

    await e.waitForJobWhere(job.jobId, "the next attempt leased", (j) => j.attemptCount === 1 && j.status !== "queued", RECOVERY_MS);
    expect(Date.now() - killedAt).toBeLessThan(RECOVERY_MS);
    const done = await e.waitForJob(job.jobId, ["completed", "failed"], 60_000);
    expect(done.status).toBe("completed");
    expect(done.attemptCount).toBe(1);
    const progress = await apiCall<{ attemptHistory: Array<{ error: { code: string } }> }>(
      e.stack.apiBaseUrl,
      "GET",
      `/v1/jobs/${job.jobId}/progress`,
      await consoleKey(e),
    );
    expect(progress.data.attemptHistory.map((a) => a.error.code)).toEqual(["runner_lost"]);
    expect((done.resultSummary as { test: { runnerId: string } }).test.runnerId).toBe("survivor");
  });

  it("a graceful cancel stops a real runner after its current stage: cancelling, then cancelled", async () => {
    const job = await submit();
    await e.waitForJob(job.jobId, ["processing"], 30_000);
    const cancelling = await e.api<Job>("POST", `/v1/jobs/${job.jobId}/cancel`);
    expect(cancelling.status).toBe("cancelling");
    expect(cancelling.cancelMode).toBe("graceful");
    const done = await e.waitForJob(job.jobId, ["cancelled", "completed", "failed"], 30_000);
    expect(done.status).toBe("cancelled");
    expect(done.completedAt).not.toBeNull();
    const progress = await apiCall<{ progress: Array<{ stage: string; event: string }> }>(
      e.stack.apiBaseUrl,
      "GET",
      `/v1/jobs/${job.jobId}/progress`,
      await consoleKey(e),
    );
    const events = progress.data.progress.map((p) => `${p.stage}:${p.event}`);
    // The stage in flight finished; no stage started after the cancel was seen.
    expect(events.at(-1)).toMatch(/:completed$/);
    expect(events.length).toBeLessThan(6);
  });
});
