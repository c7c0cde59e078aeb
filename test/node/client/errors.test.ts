import { afterEach, describe, expect, it } from "vitest";
import { MediaJobs, MediaJobsError } from "../../../sdk/client";
import { apiError, type FakeApi } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

let api: FakeApi;
afterEach(async () => api?.close());

async function caught(p: Promise<unknown>): Promise<MediaJobsError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(MediaJobsError);
  return err as MediaJobsError;
}

describe("client errors", () => {
  it("an error envelope becomes a MediaJobsError with status, code, message, details and request id", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on(
      "GET",
      "/v1/jobs/job_x",
      apiError(404, "notFound", "job not found: job_x", [{ path: "jobId", issue: "notFound:job_x" }], { "x-request-id": "req-42" }),
    );
    const err = await caught(c.mj.jobs.get("job_x"));
    expect({ status: err.status, code: err.code, message: err.message, details: err.details, requestId: err.requestId }).toEqual({
      status: 404,
      code: "notFound",
      message: "job not found: job_x",
      details: [{ path: "jobId", issue: "notFound:job_x" }],
      requestId: "req-42",
    });
  });

  it("the envelope's metadata and Retry-After travel with the error (429 quotaExceeded)", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", {
      status: 429,
      headers: { "retry-after": "3600" },
      body: {
        data: null,
        error: { code: "quotaExceeded", message: "free plan limit reached", details: [] },
        metadata: { quota: { meter: "transcription_jobs" } },
      },
    });
    const err = await caught(c.mj.jobs.create({ serviceType: "metadata", input: { textSourceId: "txt_1" } }));
    expect(err.code).toBe("quotaExceeded");
    expect(err.metadata).toEqual({ quota: { meter: "transcription_jobs" } });
    expect(err.retryAfterMs).toBe(3_600_000);
  });

  it("an answer that is not the envelope is code invalidResponse with its HTTP status", async () => {
    const c = await clientWithFake({ maxRetries: 0 });
    api = c.api;
    api.on("GET", "/v1/jobs/job_x", { status: 502, body: "<html>bad gateway</html>" });
    const err = await caught(c.mj.jobs.get("job_x"));
    expect([err.status, err.code]).toEqual([502, "invalidResponse"]);
  });

  it("no answer at all is status 0, code networkError", async () => {
    const c = await clientWithFake();
    api = c.api;
    const url = api.url;
    await api.close();
    const mj = new MediaJobs({ baseUrl: url, apiKey: "sk_prj_test", maxRetries: 0 });
    const err = await caught(mj.jobs.get("job_x"));
    expect([err.status, err.code]).toEqual([0, "networkError"]);
  });
});
