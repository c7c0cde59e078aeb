import { beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import { call, expectError } from "./helpers/api";
import { submitTranscription, transcriptionBody } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { usage } from "./helpers/transcripts";

/**
 * HTTP-level answers: every refusal, from routing to body parsing to quotas, is in the error
 * envelope `{ data: null, error: { code, message, details[] } }`; successes are `{ data, metadata }`.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});

describe("routing", () => {
  it.each([
    { method: "GET", path: "/v1/nothing-here" },
    { method: "GET", path: "/v1/jobs/job_x/unknown" },
    { method: "POST", path: "/v2/jobs" },
  ])("$method $path is 404 notFound", async ({ method, path }) => {
    expectError(await call(method, path, { key: t.projectKey }), 404, "notFound");
  });

  it.each([
    { method: "DELETE", path: "/v1/jobs", allow: "GET, HEAD, POST" },
    { method: "PUT", path: "/v1/jobs/job_abc", allow: "DELETE, GET, HEAD" },
    { method: "GET", path: "/v1/jobs/job_abc/cancel", allow: "POST" },
    { method: "PATCH", path: "/v1/workspace", allow: "GET, HEAD" },
    // `DELETE /v1/jobs/:jobId` matches this path too (a DELETE of it is a 404: no job is named "policy").
    { method: "POST", path: "/v1/jobs/policy", allow: "DELETE, GET, HEAD" },
  ])("$method $path (known path, wrong method) is 405 methodNotAllowed with Allow: $allow", async ({ method, path, allow }) => {
    const res = await call(method, path, { key: t.projectKey });
    expectError(res, 405, "methodNotAllowed");
    expect(res.headers.get("allow")).toBe(allow);
  });

  it("a wrong method is still checked for authentication first (401 without a key)", async () => {
    expectError(await call("DELETE", "/v1/jobs"), 401, "unauthorized");
  });
});

describe("request bodies", () => {
  const post = (rawBody: string, contentType?: string) =>
    call("POST", "/v1/jobs", { key: t.projectKey, rawBody, headers: contentType ? { "content-type": contentType } : {} });

  it("a body over 1 MiB is 413 payloadTooLarge", async () => {
    const big = JSON.stringify({ serviceType: "transcription", input: {}, userMetadata: { blob: "x".repeat(1024 * 1024) } });
    expectError(await post(big, "application/json"), 413, "payloadTooLarge");
  });

  it.each(["text/plain", "application/x-www-form-urlencoded", undefined])("content type %s is 415 unsupportedMediaType", async (type) => {
    expectError(await post("{}", type), 415, "unsupportedMediaType");
  });

  it("malformed JSON is 422 validationError with issue malformedJson", async () => {
    const res = await post('{"serviceType": "transcription",', "application/json");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "", issue: "malformedJson" }]);
  });

  it("an empty body is 422 validationError", async () => {
    const res = await post("", "application/json");
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "", issue: "required" }]);
  });

  it("a JSON content type with parameters is accepted", async () => {
    const source = await putSource(`${unique("env")}/a.mp4`);
    const res = await post(JSON.stringify(transcriptionBody(t, source)), "application/json; charset=utf-8");
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  });
});

describe("success envelope", () => {
  it("answers { data, metadata }", async () => {
    const res = await call("GET", "/v1/jobs", { key: t.projectKey });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "metadata"]);
  });
});

describe("free plan quota", () => {
  it("the 11th transcription job in a month is 429 quotaExceeded, naming the limit and when it resets", async () => {
    const free = await createTenant({ plan: "free" });
    for (let i = 0; i < 10; i++) await submitTranscription(free);
    const source = await putSource(`${unique("quota")}/eleventh.mp4`);
    const res = await call<Job>("POST", "/v1/jobs", { key: free.projectKey, body: transcriptionBody(free, source) });
    expectError(res, 429, "quotaExceeded");
    const now = new Date();
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString();
    expect(res.body.error?.message).toContain("transcription_jobs");
    expect(res.body.error?.message).toContain("10 of 10");
    expect(res.body.error?.message).toContain(resetsAt);
    expect(res.body.metadata["quota"]).toEqual({ meter: "transcription_jobs", limit: 10, used: 10, requested: 1, resetsAt });
    expect(res.body.error?.details).toEqual([{ path: "serviceType", issue: "quotaExceeded:transcription_jobs" }]);
    expect((await usage(free))["transcription_jobs"]).toBe(10);
  });
});

describe("create: order of checks (body, references, availability, quota, probes, charge)", () => {
  it("a free workspace at its limit that sends an unknown connectionId gets 404, not 429", async () => {
    const free = await createTenant({ plan: "free" });
    for (let i = 0; i < 10; i++) await submitTranscription(free);
    const source = await putSource(`${unique("quota")}/order.mp4`);
    const body = transcriptionBody(free, source);
    const res = await call<Job>("POST", "/v1/jobs", {
      key: free.projectKey,
      body: { ...body, input: { ...body.input, connectionId: "stc_nope" } },
    });
    expectError(res, 404, "notFound");
    expect(res.body.error?.details).toEqual([{ path: "input.connectionId", issue: "notFound:stc_nope" }]);
  });

  it("a free workspace at its limit whose source object is missing gets 429: quota comes before the S3 probes", async () => {
    const free = await createTenant({ plan: "free" });
    for (let i = 0; i < 10; i++) await submitTranscription(free);
    const res = await call<Job>("POST", "/v1/jobs", {
      key: free.projectKey,
      body: transcriptionBody(free, `${unique("missing")}/nothing-here.mp4`),
    });
    expectError(res, 429, "quotaExceeded");
  });
});

describe("GET /v1/workspace", () => {
  it("reports usage per meter with the plan's limits and when the period resets", async () => {
    const free = await createTenant({ plan: "free" });
    await submitTranscription(free);
    await submitTranscription(free);
    const res = await call<{
      plan: string;
      usage: {
        period: string;
        resetsAt: string;
        meters: Array<{ meter: string; used: number; limit: number | null; remaining: number | null }>;
      };
    }>("GET", "/v1/workspace", { key: free.projectKey });
    expect(res.status).toBe(200);
    expect(res.body.data.plan).toBe("free");
    const meters = Object.fromEntries(res.body.data.usage.meters.map((m) => [m.meter, m]));
    expect(meters["transcription_jobs"]).toEqual({ meter: "transcription_jobs", used: 2, limit: 10, remaining: 8 });
    expect(meters["clip_credits"]).toEqual({ meter: "clip_credits", used: 0, limit: 1000, remaining: 1000 });
    expect(meters["thumbnail_credits"]).toEqual({ meter: "thumbnail_credits", used: 0, limit: 100, remaining: 100 });
    expect(res.body.data.usage.period).toMatch(/^\d{4}-\d{2}$/);
  });

  it("a workspace key sees the same usage", async () => {
    const res = await call<{ workspaceId: string }>("GET", "/v1/workspace", { key: t.workspaceKey });
    expect(res.status).toBe(200);
    expect(res.body.data.workspaceId).toBe(t.workspaceId);
  });
});
