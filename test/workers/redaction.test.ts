import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { RedactionRecord } from "../../contracts/redaction";
import type { StoredRedaction } from "../../contracts/services/transcription";
import type { Segment } from "../../contracts/transcript";
import { redactTranscript } from "../../gpu-runner/services/transcription/redaction";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, waitForStatus } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, projectKey, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, completeTranscription, TRANSCRIPTION_HANDLER, transcriptionResult } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";

/**
 * Redaction through the Worker (docs/api.md "Your data"): the project's policy and the job's option
 * decide at create; the runner's redacted result is stored with its record and, when the project
 * keeps it, the text as heard behind its own permission; edits stay redacted; and under
 * `redaction: "required"` nothing is made from an unredacted transcript.
 */

const HEARD = ["my name is Ana Lopez", "write to ana.lopez@example.com please", "nothing personal here"];

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
});
afterEach(async () => cancelUnfinished(t));

const setPolicy = (tenant: Tenant, dataPolicy: Record<string, unknown>) =>
  call("PATCH", `/v1/projects/${tenant.projectId}`, { key: tenant.workspaceKey, body: { dataPolicy } });

async function transcribe(tenant: Tenant, options?: Record<string, unknown>) {
  const sourceKey = await putSource(`${unique("src")}/clip.mp4`, tenant.bucket);
  return call<Job>("POST", "/v1/jobs", {
    key: tenant.projectKey,
    body: {
      serviceType: "transcription",
      input: {
        sourceType: "s3_direct",
        connectionId: tenant.connectionId,
        bucket: tenant.bucket,
        sourceKey,
        ...(options ? { options } : {}),
      },
    },
  });
}

/** The runner's part for a redacting job: the heard segments, through the runner's own redact stage. */
function redactedResult(job: Job) {
  const base = transcriptionResult(job, HEARD);
  const stored = (job.input["options"] as { redaction: StoredRedaction }).redaction;
  const r = redactTranscript({ ...base, speakers: [] }, stored);
  return { ...base, segments: r.doc.segments, redaction: r.record, ...(r.unredacted ? { unredactedSegments: r.unredacted } : {}) };
}

async function redactedTranscript(tenant: Tenant): Promise<string> {
  const job = (await transcribe(tenant, { redaction: {} })).body.data;
  await completeTranscription(tenant, job, redactedResult(job));
  return String(job.input["textSourceId"]);
}

const read = (tenant: Tenant, id: string) =>
  call<{ segments: Segment[]; redaction: RedactionRecord | null; revision: number }>("GET", `/v1/transcriptions/${id}?layers=segments`, {
    key: tenant.projectKey,
  });

describe("redaction at create", () => {
  it("a job's options.redaction is stored with every entity type by default", async () => {
    const res = await transcribe(t, { redaction: {} });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((res.body.data.input["options"] as Record<string, unknown>)["redaction"]).toMatchObject({ reason: "job", keepUnredacted: true });
    // Run to the end: a cancelled transcription's task could still be leased by the next test's runner.
    await completeTranscription(t, res.body.data, redactedResult(res.body.data));
  });

  it("a project whose policy turns redaction off refuses a job that asks for it with 422 redactionOff", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { redaction: "off" });
    const res = await transcribe(p, { redaction: { entities: ["EMAIL"] } });
    expectError(res, 422, "validationError");
    expect(res.body.error?.details).toEqual([{ path: "input.options.redaction", issue: "redactionOff" }]);
  });

  it("under redaction: required every job redacts, even one that did not ask", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { redaction: "required", keepUnredacted: false });
    const res = await transcribe(p);
    expect((res.body.data.input["options"] as Record<string, unknown>)["redaction"]).toMatchObject({
      reason: "policy",
      keepUnredacted: false,
    });
    await completeTranscription(p, res.body.data, redactedResult(res.body.data));
  });
});

describe("a redacted transcript", () => {
  it("is stored as the redacted text with its record of types and places, never the values", async () => {
    const id = await redactedTranscript(t);
    const res = await read(t, id);
    const text = res.body.data.segments.map((s) => s.text).join(" ");
    expect(text).toContain("[PERSON]");
    expect(text).toContain("[EMAIL]");
    expect(text).not.toContain("ana.lopez@example.com");
    expect(res.body.data.redaction?.counts).toMatchObject({ EMAIL: 1, PERSON: 1 });
    expect(JSON.stringify(res.body.data.redaction)).not.toContain("Lopez");
  });

  it("keeps the text as heard behind transcript:read_unredacted, which no key holds by default", async () => {
    const id = await redactedTranscript(t);
    expectError(await call("GET", `/v1/transcriptions/${id}/unredacted`, { key: t.projectKey }), 403, "forbidden");
    const granted = await projectKey(t, ["transcript:read_unredacted"]);
    const res = await call<{ segments: Segment[] }>("GET", `/v1/transcriptions/${id}/unredacted`, { key: granted.secret });
    expect(res.body.data.segments.map((s) => s.text)).toEqual(HEARD);
  });

  it("keeps no text as heard when the project's policy says so", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { keepUnredacted: false });
    const id = await redactedTranscript(p);
    const granted = await projectKey(p, ["transcript:read_unredacted"]);
    const res = await call<{ segments: unknown }>("GET", `/v1/transcriptions/${id}/unredacted`, { key: granted.secret });
    expect(res.body.data.segments).toBeNull();
  });

  it("is redacted again where an edit types personal data in", async () => {
    const id = await redactedTranscript(t);
    const before = await read(t, id);
    const res = await call<{ segments: Segment[] }>("PATCH", `/v1/transcriptions/${id}/segments`, {
      key: t.projectKey,
      body: { revision: before.body.data.revision, segments: [{ id: 2, text: "call me at bruno.silva@example.org" }] },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = await read(t, id);
    expect(after.body.data.segments[2]?.text).toBe("call me at [EMAIL]");
    expect(after.body.data.redaction?.counts["EMAIL"]).toBe(2);
  });

  it("a job that redacts fails when the runner's result carries no redaction, and nothing is stored", async () => {
    const job = (await transcribe(t, { redaction: {} })).body.data;
    const task = await fakeRunner.leaseWhenReady(job.jobId, TRANSCRIPTION_HANDLER);
    await fakeRunner.complete(task, transcriptionResult(job, HEARD) as unknown as Record<string, unknown>);
    const failed = await waitForStatus(t, job.jobId, "failed");
    expect(failed.error?.code).toBe("processing_failed");
    expect((await read(t, String(job.input["textSourceId"]))).body.data.segments ?? []).toEqual([]);
  });
});

describe("under redaction: required", () => {
  it("nothing is made from a transcript that was not redacted: 422 redactionRequired", async () => {
    const p = await createTenant({ plan: "enterprise" });
    const { textSourceId } = await completedTranscript(p, HEARD);
    await setPolicy(p, { redaction: "required" });
    for (const [serviceType, input] of [
      ["metadata", { textSourceId }],
      ["translation", { textSourceId, targetLanguage: "es" }],
      ["indexer", { textSourceIds: [textSourceId] }],
      ["summarization", { textSourceJobId: textSourceId }],
    ] as const) {
      const res = await call("POST", "/v1/jobs", { key: p.projectKey, body: { serviceType, input } });
      expect(res.status, serviceType).toBe(422);
      expect(JSON.stringify(res.body.error?.details), serviceType).toContain("redactionRequired");
    }
  });

  it("a redacted transcript is worked on as usual", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { redaction: "required" });
    const id = await redactedTranscript(p);
    const job = await createJob(p, "metadata", { textSourceId: id });
    expect(job.status).toBe("queued");
    await cancelUnfinished(p);
  });
});
