import { env } from "cloudflare:workers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { AuditEvent } from "../../contracts/audit-log";
import type { Job } from "../../contracts/job";
import { LEXICAL_MODEL } from "../support/fakes/lexical-vectors";
import { getDb } from "../../worker/db/client";
import { openAuditEvent } from "../../worker/deletion/audit-log";
import { runRetention } from "../../worker/deletion/retention";
import { transcriptScope } from "../../worker/deletion/scope";
import { findTranscript } from "../../worker/transcripts/lookup";
import { workflowStub } from "../../worker/workflows/stubs";
import { call, expectError } from "./helpers/api";
import {
  catalogRowsOf,
  d1RowsNaming,
  deriveEverything,
  jobObjectKeys,
  platformObjectsNaming,
  translateThrough,
  writeOutputs,
} from "./helpers/derived";
import { cancelUnfinished, patchSettings, transcriptionBody } from "./helpers/jobs";
import { putSource, testS3 } from "./helpers/s3";
import { seedServiceRecords } from "./helpers/records";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, diarizedTranscript } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";

/**
 * Deletion (docs/api.md "Your data"): a transcript goes with everything made from it from every
 * store (D1, the jobs' Durable Objects, the catalog object, the platform's R2 objects, and with
 * `deleteOutputs` the customer's bucket); a finished job; a whole project; retention by policy; and
 * every deletion in the audit log.
 */

let t: Tenant;
beforeAll(async () => {
  await patchSettings({ catalog: { embeddingEngine: "openai-compatible", embeddingModel: LEXICAL_MODEL } });
  t = await createTenant({ plan: "enterprise" });
});
afterAll(async () => {
  await patchSettings({ catalog: { embeddingEngine: "local-wink", embeddingModel: null } });
});
afterEach(async () => cancelUnfinished(t));

const TEXTS = ["Ana met Bruno in Lisbon.", "They talked about bread.", "Then they went home."];

const del = (path: string, key = t.projectKey) => call<Record<string, unknown>>("DELETE", path, { key });
const transcriptGet = (id: string) => call("GET", `/v1/transcriptions/${id}`, { key: t.projectKey });
const exists = async (key: string) => (await testS3().headObject("media-test", key)) !== null;

/** A transcript with a translation, metadata, a summary and an index, and every id that names them. */
async function transcriptWithEverything(tenant = t) {
  const { textSourceId, jobId } = await completedTranscript(tenant, TEXTS);
  const derived = await deriveEverything(tenant, textSourceId);
  const jobIds = [jobId, derived.translation.jobId, derived.metadata.jobId, derived.summary.jobId, derived.index.jobId];
  return { textSourceId, jobId, derived, jobIds, ids: [textSourceId, String(derived.translation.input["translationId"]), ...jobIds] };
}

async function auditLog(query = ""): Promise<AuditEvent[]> {
  const res = await call<AuditEvent[]>("GET", `/v1/audit-log${query}`, { key: t.workspaceKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

describe("deleting a transcript", () => {
  it("leaves nothing of it or of what was made from it in D1, the jobs' objects, the catalog or the platform's objects", async () => {
    const x = await transcriptWithEverything();
    expect(await catalogRowsOf(t.projectId, x.textSourceId)).toBeGreaterThan(0);
    expect(await platformObjectsNaming(t.projectId, [x.textSourceId])).not.toEqual([]);

    const res = await del(`/v1/transcriptions/${x.textSourceId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);

    expect(await d1RowsNaming(x.ids)).toEqual({});
    for (const jobId of x.jobIds) expect(await jobObjectKeys(jobId)).toEqual([]);
    expect(await catalogRowsOf(t.projectId, x.textSourceId)).toBe(0);
    expect(await platformObjectsNaming(t.projectId, x.ids)).toEqual([]);
    expect((await transcriptGet(x.textSourceId)).status).toBe(404);
    expect((await call("GET", `/v1/jobs/${x.derived.translation.jobId}`, { key: t.projectKey })).status).toBe(404);
  });

  it("takes its speakers' voice-cloning consents with it", async () => {
    const { textSourceId } = await diarizedTranscript(t, ["SPEAKER_00", "SPEAKER_01"]);
    const consent = await call<{ consentId: string }>("POST", "/v1/voice-consents", {
      key: t.projectKey,
      body: {
        kind: "attestation",
        subject: { transcriptionId: textSourceId, speakerLabel: "SPEAKER_00" },
        statement: "Ana agreed in writing.",
      },
    });
    expect(consent.status, JSON.stringify(consent.body)).toBe(201);
    const res = await del(`/v1/transcriptions/${textSourceId}`);
    expect(res.body.data["erased"]).toMatchObject({ records: { voiceConsents: 1 } });
    expect(await d1RowsNaming([consent.body.data.consentId])).toEqual({});
  });

  it("answers what it erased: the jobs and records by kind, the chunks and objects", async () => {
    const x = await transcriptWithEverything();
    const res = await del(`/v1/transcriptions/${x.textSourceId}`);
    expect(res.body.data).toMatchObject({
      transcriptionId: x.textSourceId,
      deleted: true,
      erased: { jobs: x.jobIds.length, records: { transcripts: 1, translations: 1, summarizations: 1 } },
      outputs: { deleted: 0, kept: [] },
    });
  });

  it("is refused with 409 naming the job while a job that is not finished uses it, and nothing is deleted", async () => {
    const { textSourceId } = await completedTranscript(t, TEXTS);
    const running = await createJob(t, "translation", { textSourceId, targetLanguage: "es" });
    const res = await del(`/v1/transcriptions/${textSourceId}`);
    expectError(res, 409, "conflict");
    expect(res.body.error?.details).toEqual([{ path: "jobId", issue: `inUseBy:${running.jobId}` }]);
    expect((await transcriptGet(textSourceId)).status).toBe(200);
  });

  it("with deleteOutputs=true also deletes the files its jobs wrote into the bucket", async () => {
    const { textSourceId } = await completedTranscript(t, TEXTS);
    const translation = await translateThrough(t, textSourceId);
    const files = [
      ...Object.values((await transcriptGet(textSourceId)).body.data["outputKeys"] as Record<string, string>),
      ...Object.values(translation.input["resolvedOutputKeys"] as Record<string, string>),
    ];
    await writeOutputs(files);
    const res = await del(`/v1/transcriptions/${textSourceId}?deleteOutputs=true`);
    expect(res.body.data["outputs"]).toEqual({ deleted: files.length, kept: [] });
    for (const key of files) expect(await exists(key), key).toBe(false);
  });

  it("without deleteOutputs leaves the files in the bucket as they are", async () => {
    const { textSourceId } = await completedTranscript(t, TEXTS);
    const files = Object.values((await transcriptGet(textSourceId)).body.data["outputKeys"] as Record<string, string>);
    await writeOutputs(files);
    expect((await del(`/v1/transcriptions/${textSourceId}`)).status).toBe(200);
    for (const key of files) expect(await exists(key), key).toBe(true);
  });

  it("refuses a deleteOutputs that is not true or false with 422", async () => {
    const { textSourceId } = await completedTranscript(t, TEXTS);
    expectError(await del(`/v1/transcriptions/${textSourceId}?deleteOutputs=yes`), 422, "validationError");
  });

  it("is 404 for a transcript of another project, which stays", async () => {
    const other = await createTenant();
    const { textSourceId } = await completedTranscript(other, TEXTS);
    expectError(await del(`/v1/transcriptions/${textSourceId}`), 404, "notFound");
    expect((await call("GET", `/v1/transcriptions/${textSourceId}`, { key: other.projectKey })).status).toBe(200);
  });

  it("is recorded in the audit log with the key that asked and what it covered", async () => {
    const x = await transcriptWithEverything();
    await del(`/v1/transcriptions/${x.textSourceId}`);
    const [entry] = await auditLog(`?projectId=${t.projectId}&action=transcript.deleted&limit=1`);
    expect(entry).toMatchObject({
      action: "transcript.deleted",
      subject: { type: "transcript", id: x.textSourceId },
      actor: { kind: "api_key", label: "ci-key" },
      state: "completed",
      details: { jobs: x.jobIds.length },
    });
    expect(JSON.stringify(entry)).not.toContain("Lisbon");
  });

  it("that stopped half-way is finished by the scheduled run from its audit entry", async () => {
    const { textSourceId, jobId } = await completedTranscript(t, TEXTS);
    const db = getDb(env.DB);
    const row = await findTranscript(db, t.projectId, textSourceId);
    const scope = await transcriptScope(env, db, row!, false);
    // The entry is written before anything is erased: a deletion that stops right after leaves only it.
    const audit = await openAuditEvent(db, {
      workspaceId: t.workspaceId,
      projectId: t.projectId,
      action: "transcript.deleted",
      subject: { type: "transcript", id: textSourceId },
      actor: { kind: "api_key", id: t.projectKeyId, label: "ci-key" },
      pending: { ...scope },
    });
    await runRetention(env, new Date());
    expect(await d1RowsNaming([textSourceId, jobId])).toEqual({});
    const entry = await call<AuditEvent>("GET", `/v1/audit-log/${audit.id}`, { key: t.workspaceKey });
    expect(entry.body.data.state).toBe("completed");
  });
});

describe("deleting a job", () => {
  it("removes a finished job's row and state; the transcript it made stays", async () => {
    const { textSourceId, jobId } = await completedTranscript(t, TEXTS);
    const res = await del(`/v1/jobs/${jobId}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await d1RowsNaming([jobId])).toEqual({});
    expect(await jobObjectKeys(jobId)).toEqual([]);
    expect((await transcriptGet(textSourceId)).status).toBe(200);
  });

  it("is refused with 409 while the job is not finished", async () => {
    const { textSourceId } = await completedTranscript(t, TEXTS);
    const running = await createJob(t, "metadata", { textSourceId });
    expectError(await del(`/v1/jobs/${running.jobId}`), 409, "conflict");
    expect((await call<Job>("GET", `/v1/jobs/${running.jobId}`, { key: t.projectKey })).status).toBe(200);
  });

  it("with deleteOutputs=true deletes the files the job wrote, and only those", async () => {
    const { textSourceId, jobId } = await completedTranscript(t, TEXTS);
    const translation = await translateThrough(t, textSourceId);
    const own = Object.values((await transcriptGet(textSourceId)).body.data["outputKeys"] as Record<string, string>);
    const others = Object.values(translation.input["resolvedOutputKeys"] as Record<string, string>);
    await writeOutputs([...own, ...others]);
    const res = await del(`/v1/jobs/${jobId}?deleteOutputs=true`);
    expect(res.body.data["outputs"]).toEqual({ deleted: own.length, kept: [] });
    for (const key of own) expect(await exists(key), key).toBe(false);
    for (const key of others) expect(await exists(key), key).toBe(true);
  });
});

describe("deleting a voice", () => {
  it("removes the voice and records who deleted it", async () => {
    const { jobId, textSourceId } = await completedTranscript(t, TEXTS);
    const { voiceId } = await seedServiceRecords(t.projectId, textSourceId, jobId);
    const res = await del(`/v1/voices/${voiceId}`);
    expect(res.body.data).toMatchObject({ voiceId, deleted: true });
    expect((await call("GET", `/v1/voices/${voiceId}`, { key: t.projectKey })).status).toBe(404);
    const [entry] = await auditLog(`?action=voice.deleted&limit=1`);
    expect(entry).toMatchObject({ subject: { type: "voice", id: voiceId }, actor: { kind: "api_key", label: "ci-key" } });
  });
});

describe("deleting a project", () => {
  it("revokes its keys at once, erases everything it holds, and keeps the audit entry", async () => {
    const p = await createTenant({ plan: "enterprise" });
    const x = await transcriptWithEverything(p);
    const res = await call<{ auditEventId: string; state: string }>("DELETE", `/v1/projects/${p.projectId}`, { key: p.workspaceKey });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    expectError(await call("GET", "/v1/jobs", { key: p.projectKey }), 401, "unauthorized");
    expectError(await call("GET", `/v1/projects/${p.projectId}`, { key: p.workspaceKey }), 404, "notFound");

    await runRetention(env, new Date());
    expect(await d1RowsNaming(x.ids)).toEqual({});
    for (const jobId of x.jobIds) expect(await jobObjectKeys(jobId)).toEqual([]);
    expect(await platformObjectsNaming(p.projectId, [""])).toEqual([]);
    const rows = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM projects WHERE id = ?1) + (SELECT count(*) FROM api_keys WHERE project_id = ?1) + (SELECT count(*) FROM storage_connections WHERE project_id = ?1) AS n",
    )
      .bind(p.projectId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(0);
    const entry = await call<AuditEvent>("GET", `/v1/audit-log/${res.body.data.auditEventId}`, { key: p.workspaceKey });
    expect(entry.body.data).toMatchObject({ action: "project.deleted", state: "completed", subject: { id: p.projectId } });
  });

  it("erases its workflows, their objects, and its presets", async () => {
    const p = await createTenant({ plan: "enterprise" });
    const steps = [{ id: "transcribe", ...transcriptionBody(p, await putSource(`${unique("wf")}/clip.mp4`)) }];
    await call("POST", "/v1/presets", { key: p.projectKey, body: { name: "kept-nowhere", steps } });
    const w = await call<{ workflowId: string }>("POST", "/v1/workflows", { key: p.projectKey, body: { steps } });
    await call("POST", `/v1/workflows/${w.body.data.workflowId}/cancel`, { key: p.projectKey });
    await cancelUnfinished(p);
    expect((await call("DELETE", `/v1/projects/${p.projectId}`, { key: p.workspaceKey })).status).toBe(202);
    await runRetention(env, new Date());
    const left = await env.DB.prepare(
      "SELECT (SELECT count(*) FROM workflows WHERE project_id = ?1) + (SELECT count(*) FROM presets WHERE project_id = ?1) + (SELECT count(*) FROM workflow_jobs WHERE workflow_id = ?2) AS n",
    )
      .bind(p.projectId, w.body.data.workflowId)
      .first<{ n: number }>();
    expect(left?.n).toBe(0);
    expect(await workflowStub(env, w.body.data.workflowId).get()).toBeNull();
  });

  it("is refused with 409 while one of its jobs is not finished", async () => {
    const p = await createTenant({ plan: "enterprise" });
    const { textSourceId } = await completedTranscript(p, TEXTS);
    const running = await createJob(p, "metadata", { textSourceId });
    const res = await call("DELETE", `/v1/projects/${p.projectId}`, { key: p.workspaceKey });
    expectError(res, 409, "conflict");
    expect(res.body.error?.details).toEqual([{ path: "jobId", issue: `inUseBy:${running.jobId}` }]);
    await cancelUnfinished(p);
  });
});

describe("retention", () => {
  const DAY = 24 * 60 * 60 * 1000;
  const setPolicy = (tenant: Tenant, dataPolicy: Record<string, unknown>) =>
    call("PATCH", `/v1/projects/${tenant.projectId}`, { key: tenant.workspaceKey, body: { dataPolicy } });

  it("deletes transcripts older than retentionDays with what was made from them, and keeps younger ones", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { retentionDays: 30 });
    const old = await transcriptWithEverything(p);
    const run = await runRetention(env, new Date(Date.now() + 31 * DAY));
    expect(run.transcriptsDeleted).toBeGreaterThanOrEqual(1);
    expect(await d1RowsNaming(old.ids)).toEqual({});
    const young = await completedTranscript(p, TEXTS);
    await runRetention(env, new Date(Date.now() + 1 * DAY));
    expect((await call("GET", `/v1/transcriptions/${young.textSourceId}`, { key: p.projectKey })).status).toBe(200);
  });

  it("records each deletion it makes as the policy's, not a person's", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { retentionDays: 7 });
    const { textSourceId } = await completedTranscript(p, TEXTS);
    await runRetention(env, new Date(Date.now() + 8 * DAY));
    const res = await call<AuditEvent[]>("GET", `/v1/audit-log?projectId=${p.projectId}`, { key: p.workspaceKey });
    expect(res.body.data.find((e) => e.subject.id === textSourceId)?.actor).toEqual({
      kind: "policy",
      id: null,
      label: "retentionDays: 7",
    });
  });

  it("skips a transcript a job still uses, until the job is done", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { retentionDays: 1 });
    const { textSourceId } = await completedTranscript(p, TEXTS);
    await createJob(p, "metadata", { textSourceId });
    const run = await runRetention(env, new Date(Date.now() + 2 * DAY));
    expect(run.transcriptsInUse).toBeGreaterThanOrEqual(1);
    expect((await call("GET", `/v1/transcriptions/${textSourceId}`, { key: p.projectKey })).status).toBe(200);
    await cancelUnfinished(p);
  });

  it("deletes finished jobs older than jobRetentionDays and keeps the transcripts they made", async () => {
    const p = await createTenant({ plan: "enterprise" });
    await setPolicy(p, { jobRetentionDays: 3 });
    const { textSourceId, jobId } = await completedTranscript(p, TEXTS);
    await runRetention(env, new Date(Date.now() + 4 * DAY));
    expect(await d1RowsNaming([jobId])).toEqual({});
    expect((await call("GET", `/v1/transcriptions/${textSourceId}`, { key: p.projectKey })).status).toBe(200);
  });

  it("without a policy deletes nothing", async () => {
    const p = await createTenant({ plan: "enterprise" });
    const { textSourceId } = await completedTranscript(p, TEXTS);
    await runRetention(env, new Date(Date.now() + 3650 * DAY));
    expect((await call("GET", `/v1/transcriptions/${textSourceId}`, { key: p.projectKey })).status).toBe(200);
  });
});
