import { beforeAll, describe, expect, it } from "vitest";
import { JobSchema, type Job } from "../../contracts/job";
import { call } from "./helpers/api";
import { getJob, transcriptionBody } from "./helpers/jobs";
import { putSource, testS3 } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { usage } from "./helpers/transcripts";

/** POST /v1/jobs (transcription, s3_direct) when the request is valid: what the created Job carries. */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "pro" });
});

/** Creates a transcription of a fresh source named `file`; returns the 201 answer's job. */
async function create(
  tenant: Tenant,
  file = "talk.mp4",
  extra: Record<string, unknown> = {},
  inputExtra: Record<string, unknown> = {},
): Promise<Job> {
  const key = await putSource(`${unique("in")}/${file}`);
  const body = transcriptionBody(tenant, key, extra);
  const res = await call<Job>("POST", "/v1/jobs", { key: tenant.projectKey, body: { ...body, input: { ...body.input, ...inputExtra } } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

describe("POST /v1/jobs (transcription, s3_direct)", () => {
  it("accepts a valid transcription and answers 201 with the queued job", async () => {
    const job = await create(t);
    expect(job.status).toBe("queued");
    expect(job.resultSummary).toBeNull();
    expect(job.input["textSourceId"]).toMatch(/^txt_/);
  });

  it("the created job carries every field of the spec's Job table, and no other", async () => {
    const job = await create(t);
    expect(() => JobSchema.strict().parse(job)).not.toThrow();
    expect(Object.keys(job).sort()).toEqual(Object.keys(JobSchema.shape).sort());
  });

  it("a GET right after create returns the same job", async () => {
    const job = await create(t);
    expect(await getJob(t, job.jobId)).toEqual(job);
  });

  it("records who created it: the API key's name and id", async () => {
    const job = await create(t);
    expect(job).toMatchObject({
      createdByKind: "api_key",
      createdByLabel: "ci-key",
      apiKeyLabel: "ci-key",
      apiKeyId: t.projectKeyId,
      isConsoleKey: false,
      workspaceId: t.workspaceId,
      projectId: t.projectId,
    });
  });

  it("the default output prefix is svc-media-results/<textSourceId>/transcripts/", async () => {
    const job = await create(t);
    expect(job.input["resolvedOutputPrefix"]).toBe(`svc-media-results/${String(job.input["textSourceId"])}/transcripts/`);
  });

  it("a custom outputPrefix is used as given (not combined with the default)", async () => {
    const job = await create(t, "talk.mp4", {}, { outputPrefix: "exports/run-7" });
    expect(job.input["resolvedOutputPrefix"]).toBe("exports/run-7/");
  });

  it("resolvedOutputKeys name the four files: full text, segments JSON, SRT and VTT", async () => {
    const job = await create(t);
    const prefix = String(job.input["resolvedOutputPrefix"]);
    expect(job.input["resolvedOutputKeys"]).toEqual({
      fullText: `${prefix}transcript.txt`,
      segments: `${prefix}segments.json`,
      srt: `${prefix}transcript.srt`,
      vtt: `${prefix}transcript.vtt`,
    });
  });

  it("the empty-PUT probes left an object at every output key", async () => {
    const job = await create(t);
    const keys = Object.values(job.input["resolvedOutputKeys"] as Record<string, string>);
    const heads = await Promise.all(keys.map((k) => testS3().headObject(t.bucket, k)));
    expect(heads.map((h) => h?.size)).toEqual([0, 0, 0, 0]);
  });

  it("options.preprocessing is platform-managed and stored on the job", async () => {
    const job = await create(t);
    expect((job.input["options"] as Record<string, unknown>)["preprocessing"]).toEqual(expect.objectContaining({ extract: true }));
  });

  it("userMetadata and customerJobRef are echoed, up to 120 characters", async () => {
    const ref = `ref_${"x".repeat(116)}`;
    const job = await create(t, "talk.mp4", { userMetadata: { customerJobRef: ref, team: "news" } });
    expect(job.userMetadata).toEqual({ customerJobRef: ref, team: "news" });
  });

  it("sourceDisplayName is the file name without its extension", async () => {
    const job = await create(t, "Quarterly Review.final.mov");
    expect(job.sourceDisplayName).toBe("Quarterly Review.final");
  });

  it("webhookUrl is stored when https, and null when omitted", async () => {
    expect((await create(t, "a.mp4", { webhookUrl: "https://hooks.example.com/media" })).webhookUrl).toBe(
      "https://hooks.example.com/media",
    );
    expect((await create(t)).webhookUrl).toBeNull();
  });

  it("webhookUrl: null and userMetadata: null are accepted and read as null on the Job", async () => {
    const job = await create(t, "nulls.mp4", { webhookUrl: null, userMetadata: null });
    expect(job.webhookUrl).toBeNull();
    expect(job.userMetadata).toBeNull();
  });

  it("from a console session, createdByKind is console and the session id has the cse_ prefix", async () => {
    const session = await call<{ secret: string; sessionId: string; userId: string }>("POST", "/v1/console/sessions", {
      key: t.workspaceKey,
      body: { projectId: t.projectId, userHandle: "ana" },
    });
    expect(session.body.data.sessionId).toMatch(/^cse_/);
    const key = await putSource(`${unique("in")}/console.mp4`);
    const res = await call<Job>("POST", "/v1/jobs", { key: session.body.data.secret, body: transcriptionBody(t, key) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data).toMatchObject({
      createdByKind: "console",
      // A session minted by a workspace key says so (docs/api.md, "Console sessions").
      createdByLabel: "ana (workspace key ops)",
      isConsoleKey: true,
      apiKeyLabel: null,
      apiKeyId: session.body.data.sessionId,
    });
  });

  it.each([
    { plan: "free", priority: "low" },
    { plan: "pro", priority: "normal" },
    { plan: "enterprise", priority: "high" },
  ] as const)("priority comes from the plan: $plan → $priority", async ({ plan, priority }) => {
    const job = await create(await createTenant({ plan }));
    expect(job.priority).toBe(priority);
    expect(job.workspacePlan).toBe(plan);
  });

  it("an accepted transcription is charged one transcription job", async () => {
    const before = (await usage(t))["transcription_jobs"] ?? 0;
    await create(t);
    expect((await usage(t))["transcription_jobs"]).toBe(before + 1);
  });
});

describe("Idempotency-Key on POST /v1/jobs", () => {
  const post = (body: unknown, key: string) =>
    call<Job>("POST", "/v1/jobs", { key: t.projectKey, body, headers: { "idempotency-key": key } });
  const freshBody = async () => transcriptionBody(t, await putSource(`${unique("idem")}/clip.mp4`));

  it("the same key and body replay the first answer: same job, one charge", async () => {
    const body = await freshBody();
    const key = unique("idem-key");
    const before = (await usage(t))["transcription_jobs"] ?? 0;
    const first = await post(body, key);
    const second = await post(body, key);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.data.jobId).toBe(first.body.data.jobId);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await usage(t))["transcription_jobs"]).toBe(before + 1);
  });

  it("the same key with a different body is 422 idempotencyKeyReused", async () => {
    const key = unique("idem-key");
    expect((await post(await freshBody(), key)).status).toBe(201);
    const res = await post(await freshBody(), key);
    expect(res.status).toBe(422);
    expect(res.body.error?.code).toBe("idempotencyKeyReused");
    expect(res.body.error?.details).toEqual([{ path: "headers.Idempotency-Key", issue: "bodyMismatch" }]);
  });

  it("a different key creates a new job", async () => {
    const body = await freshBody();
    const first = await post(body, unique("idem-key"));
    const second = await post(body, unique("idem-key"));
    expect(second.status).toBe(201);
    expect(second.body.data.jobId).not.toBe(first.body.data.jobId);
  });

  it("a rejected request is replayed as the same rejection", async () => {
    const body = { ...(await freshBody()), priority: "high" };
    const key = unique("idem-key");
    const first = await post(body, key);
    const second = await post(body, key);
    expect(first.status).toBe(422);
    expect(second.status).toBe(422);
    expect(second.body).toEqual(first.body);
  });
});

describe("Server-Timing on POST /v1/jobs", () => {
  it("a create answers its phases, the Durable Object's parts and the total as Server-Timing durations", async () => {
    const key = await putSource(`${unique("in")}/talk.mp4`);
    const res = await call<Job>("POST", "/v1/jobs", { key: t.projectKey, body: transcriptionBody(t, key) });
    expect(res.status).toBe(201);
    const names = (res.headers.get("server-timing") ?? "").split(", ").map((entry) => {
      expect(entry).toMatch(/^[a-z.]+;dur=\d+\.\d$/);
      return entry.split(";")[0];
    });
    expect(names).toEqual(expect.arrayContaining(["auth", "settings", "references", "quota", "probes", "charge", "do", "total"]));
    expect(names.some((n) => n?.startsWith("do."))).toBe(true);
  });

  it("other routes answer no Server-Timing", async () => {
    const res = await call("GET", "/v1/jobs?limit=1", { key: t.projectKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("server-timing")).toBeNull();
  });
});
