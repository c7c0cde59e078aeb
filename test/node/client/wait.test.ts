import { afterEach, describe, expect, it } from "vitest";
import { MediaJobs, WaitTimeoutError, type Job } from "../../../sdk/client";
import { apiError, jobStates, ok, type FakeApi } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

let api: FakeApi;
afterEach(async () => api?.close());

const polls = (...jobs: Job[]) => jobs.map((j) => ok(j));

describe("jobs.wait", () => {
  it("returns the job once it is completed, reporting each change through onUpdate", async () => {
    const c = await clientWithFake();
    api = c.api;
    const [queued, processing, done] = jobStates(
      { status: "queued" },
      { status: "processing", currentStage: "transcribe" },
      { status: "completed" },
    );
    api.on("GET", "/v1/jobs/job_test1", ...polls(queued!, processing!, done!));
    const seen: string[] = [];
    const job = await c.mj.jobs.wait("job_test1", { onUpdate: (j) => seen.push(j.status) });
    expect(job.status).toBe("completed");
    expect(seen).toEqual(["queued", "processing", "completed"]);
  });

  it("a failed job is returned with its error, not thrown", async () => {
    const c = await clientWithFake();
    api = c.api;
    const [failed] = jobStates({ status: "failed", error: { code: "duration_exceeded", message: "too long" } });
    api.on("GET", "/v1/jobs/job_test1", ok(failed));
    await expect(c.mj.jobs.wait("job_test1")).resolves.toMatchObject({ status: "failed", error: { code: "duration_exceeded" } });
  });

  it("keeps polling through cancelling until cancelled", async () => {
    const c = await clientWithFake();
    api = c.api;
    const [cancelling, cancelled] = jobStates({ status: "cancelling" }, { status: "cancelled" });
    api.on("GET", "/v1/jobs/job_test1", ...polls(cancelling!, cancelled!));
    await expect(c.mj.jobs.wait("job_test1")).resolves.toMatchObject({ status: "cancelled" });
  });

  it("backs off ×1.5 per unchanged poll up to maxIntervalMs, and drops back to intervalMs when the job changes", async () => {
    const c = await clientWithFake();
    api = c.api;
    const [a, b, done] = jobStates({ status: "queued" }, { status: "processing" }, { status: "completed" });
    api.on("GET", "/v1/jobs/job_test1", ...polls(a!, a!, a!, a!, a!, b!, b!, done!));
    await c.mj.jobs.wait("job_test1", { intervalMs: 1000, maxIntervalMs: 3000 });
    expect(c.sleeps).toEqual([1000, 1500, 2250, 3000, 3000, 1000, 1500]);
  });

  it("a 429 or 503 while polling waits for its Retry-After, then polls again", async () => {
    const c = await clientWithFake({ maxRetries: 0 });
    api = c.api;
    const [queued, done] = jobStates({ status: "queued" }, { status: "completed" });
    api.on(
      "GET",
      "/v1/jobs/job_test1",
      ok(queued),
      apiError(429, "rateLimited", "slow down", [], { "retry-after": "7" }),
      apiError(503, "internalError", "unavailable", [], { "retry-after": "4" }),
      ok(done),
    );
    await expect(c.mj.jobs.wait("job_test1", { intervalMs: 1000 })).resolves.toMatchObject({ status: "completed" });
    expect(c.sleeps).toEqual([1000, 7000, 4000]);
  });

  it("other API errors end the wait", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs/job_test1", apiError(404, "notFound", "job not found: job_test1"));
    await expect(c.mj.jobs.wait("job_test1")).rejects.toMatchObject({ code: "notFound" });
  });

  it("gives up with WaitTimeoutError carrying the last state seen", async () => {
    const c = await clientWithFake();
    api = c.api;
    const [queued] = jobStates({ status: "queued" });
    api.on("GET", "/v1/jobs/job_test1", ok(queued));
    // Real waits here: the deadline is measured on the clock.
    const mj = new MediaJobs({ baseUrl: api.url, apiKey: "sk_prj_test" });
    const err = await mj.jobs.wait("job_test1", { intervalMs: 5, timeoutMs: 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).job.status).toBe("queued");
  });

  it("submitAndWait creates with an Idempotency-Key, then waits for the result", async () => {
    const c = await clientWithFake();
    api = c.api;
    const [queued, done] = jobStates({ status: "queued" }, { status: "completed" });
    api.on("POST", "/v1/jobs", ok(queued, {}, 201));
    api.on("GET", "/v1/jobs/job_test1", ok(done));
    const job = await c.mj.jobs.submitAndWait({ serviceType: "metadata", input: { textSourceId: "txt_1" } }, { idempotencyKey: "k1" });
    expect(job.status).toBe("completed");
    expect(api.requests[0]!.headers["idempotency-key"]).toBe("k1");
  });
});
