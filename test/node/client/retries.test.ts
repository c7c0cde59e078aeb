import { afterEach, describe, expect, it } from "vitest";
import { MediaJobsError } from "../../../sdk/client";
import { apiError, jobFixture, ok, type FakeApi } from "../../support/fake-media-jobs-api";
import { clientWithFake } from "./helpers";

let api: FakeApi;
afterEach(async () => api?.close());

const transcription = {
  serviceType: "transcription",
  input: { sourceType: "s3_direct", connectionId: "stc_1", bucket: "media", sourceKey: "in/talk.mp4" },
} as const;

describe("Idempotency-Key on create", () => {
  it("create sends a generated Idempotency-Key (a UUID) when none is given", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", ok(jobFixture(), {}, 201));
    await c.mj.jobs.create(transcription);
    expect(api.requests[0]!.headers["idempotency-key"]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  it("two creates without a key get different keys", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", ok(jobFixture(), {}, 201));
    await c.mj.jobs.create(transcription);
    await c.mj.jobs.create(transcription);
    expect(api.requests[0]!.headers["idempotency-key"]).not.toBe(api.requests[1]!.headers["idempotency-key"]);
  });

  it("a create retried after a 500 sends the same key and the same bytes, so the server replays instead of creating twice", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", apiError(500, "internalError", "internal error; the request can be retried"), ok(jobFixture(), {}, 201));
    const job = await c.mj.jobs.create(transcription, { idempotencyKey: "order-7" });
    expect(job.jobId).toBe("job_test1");
    expect(api.requests.map((r) => r.headers["idempotency-key"])).toEqual(["order-7", "order-7"]);
    expect(api.requests[1]!.body).toBe(api.requests[0]!.body);
  });

  it("a create whose connection dropped is retried with the same key", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", "drop", ok(jobFixture(), {}, 201));
    await c.mj.jobs.create(transcription);
    expect(api.requests).toHaveLength(2);
    expect(api.requests[1]!.headers["idempotency-key"]).toBe(api.requests[0]!.headers["idempotency-key"]);
  });

  it("a create answered 409 (the first request with this key still in flight) is retried for its answer", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on(
      "POST",
      "/v1/jobs",
      apiError(409, "conflict", "a request with this Idempotency-Key is still in progress"),
      ok(jobFixture(), {}, 201),
    );
    await expect(c.mj.jobs.create(transcription)).resolves.toMatchObject({ jobId: "job_test1" });
  });
});

describe("bounded retries", () => {
  it("a read is retried on 5xx at most maxRetries times, then the error is thrown", async () => {
    const c = await clientWithFake({ maxRetries: 2 });
    api = c.api;
    api.on("GET", "/v1/jobs/job_test1", apiError(503, "internalError", "unavailable"));
    await expect(c.mj.jobs.get("job_test1")).rejects.toBeInstanceOf(MediaJobsError);
    expect(api.requests).toHaveLength(3);
  });

  it("a retry waits for the answer's Retry-After", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("GET", "/v1/jobs/job_test1", apiError(503, "internalError", "unavailable", [], { "retry-after": "2" }), ok(jobFixture()));
    await c.mj.jobs.get("job_test1");
    expect(c.sleeps).toEqual([2000]);
  });

  it("a 4xx is never retried", async () => {
    const c = await clientWithFake();
    api = c.api;
    api.on("POST", "/v1/jobs", apiError(422, "validationError", "input.bucket: required", [{ path: "input.bucket", issue: "required" }]));
    await expect(c.mj.jobs.create(transcription)).rejects.toMatchObject({ status: 422, code: "validationError" });
    expect(api.requests).toHaveLength(1);
  });
});
