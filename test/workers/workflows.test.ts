import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Job } from "../../contracts/job";
import type { Preset, Workflow } from "../../contracts/workflows";
import { call, expectError } from "./helpers/api";
import { cancelUnfinished, fakeRunner, getJob, patchSettings, transcriptionBody, waitFor } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, projectKey, unique, type Tenant } from "./helpers/tenant";
import { completeTranscription, transcriptionResult, TRANSCRIPTION_HANDLER } from "./helpers/transcripts";

/**
 * Workflows and presets (issue 26; docs/api.md "Workflows"), through the Worker with the test
 * playing the runner: steps become ordinary jobs as their dependencies complete, values flow
 * through templates, a failure stops what depends on it, cancel reaches every job.
 */

let t: Tenant;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
});
afterEach(async () => {
  await cancelUnfinished(t);
});

async function sourceKey(): Promise<string> {
  return putSource(`${unique("wf")}/clip.mp4`);
}

/** A transcription, then metadata and a summary of what it heard. */
async function transcribeThenUnderstand() {
  const transcribe = transcriptionBody(t, await sourceKey());
  return {
    steps: [
      { id: "transcribe", ...transcribe },
      { id: "metadata", serviceType: "metadata", input: { textSourceId: "{{transcribe.textSourceId}}" } },
      { id: "summary", serviceType: "summarization", input: { textSourceJobId: "{{transcribe.jobId}}" }, dependsOn: ["metadata"] },
    ],
  };
}

async function createWorkflow(body: unknown, key = t.projectKey, headers: Record<string, string> = {}) {
  return call<Workflow>("POST", "/v1/workflows", { key, body, headers });
}

async function getWorkflow(id: string): Promise<Workflow> {
  const res = await call<Workflow>("GET", `/v1/workflows/${id}`, { key: t.projectKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const step = (w: Workflow, id: string) => w.steps.find((s) => s.id === id)!;

async function waitForStep(workflowId: string, stepId: string, ok: (s: Workflow["steps"][number]) => boolean): Promise<Workflow> {
  return waitFor(`step ${stepId}`, async () => {
    const w = await getWorkflow(workflowId);
    return ok(step(w, stepId)) ? w : null;
  });
}

async function completeTranscribeStep(w: Workflow): Promise<string> {
  const job = await getJob(t, step(w, "transcribe").jobId!);
  return (await completeTranscription(t, job, transcriptionResult(job, ["hello there", "general kenobi"]))).textSourceId;
}

describe("a workflow's steps", () => {
  it("makes the jobs of steps that wait for nothing at once, and the others wait with no job", async () => {
    const res = await createWorkflow(await transcribeThenUnderstand());
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const w = res.body.data;
    expect(w.workflowId).toMatch(/^wfl_/);
    expect(w.status).toBe("running");
    expect(step(w, "transcribe").jobId).toMatch(/^job_/);
    expect(step(w, "metadata")).toMatchObject({ status: "waiting", jobId: null, dependsOn: ["transcribe"] });
    expect(step(w, "summary").dependsOn.sort()).toEqual(["metadata", "transcribe"]);
  });

  it("makes a step's job with the values of the step it waits for once that completes", async () => {
    const w = (await createWorkflow(await transcribeThenUnderstand())).body.data;
    const txt = await completeTranscribeStep(w);
    const after = await waitForStep(w.workflowId, "metadata", (s) => s.jobId !== null);
    const metadataJob = await getJob(t, step(after, "metadata").jobId!);
    expect(metadataJob.serviceType).toBe("metadata");
    expect(metadataJob.input["textSourceId"]).toBe(txt);
  });

  it("a failed step skips what depends on it, and the workflow fails naming it", async () => {
    const w = (await createWorkflow(await transcribeThenUnderstand())).body.data;
    const task = await fakeRunner.leaseWhenReady(step(w, "transcribe").jobId!, TRANSCRIPTION_HANDLER);
    await fakeRunner.fail(task, "source_unreadable", false, "the source is not media");
    const ended = await waitFor("the workflow's end", async () => {
      const x = await getWorkflow(w.workflowId);
      return x.status === "failed" ? x : null;
    });
    expect(step(ended, "transcribe")).toMatchObject({ status: "failed", error: { code: "source_unreadable" } });
    expect(step(ended, "metadata")).toMatchObject({ status: "skipped", jobId: null, error: { code: "dependency_failed" } });
    expect(step(ended, "summary").status).toBe("skipped");
    expect(ended.error?.message).toMatch(/step transcribe failed/);
    expect(ended.endedAt).not.toBeNull();
  });

  it("a step whose job the create refuses fails with the refusal, and its dependants are skipped", async () => {
    const body = {
      steps: [
        { id: "transcribe", ...transcriptionBody(t, await sourceKey()) },
        // Valid until filled: a transcription's jobId is not a transcript id.
        { id: "metadata", serviceType: "metadata", input: { textSourceId: "{{transcribe.jobId}}" } },
        { id: "summary", serviceType: "summarization", input: { textSourceJobId: "{{metadata.jobId}}" } },
      ],
    };
    const w = (await createWorkflow(body)).body.data;
    await completeTranscribeStep(w);
    const ended = await waitFor("the workflow's end", async () => {
      const x = await getWorkflow(w.workflowId);
      return x.status === "failed" ? x : null;
    });
    expect(step(ended, "metadata")).toMatchObject({ status: "failed", error: { code: "step_not_created" } });
    expect(step(ended, "metadata").error?.message).toMatch(/^validationError: input.textSourceId/);
    expect(step(ended, "summary").status).toBe("skipped");
  });

  it("makes no more steps once the key that created it is revoked", async () => {
    const k = await projectKey(t);
    const w = (await createWorkflow(await transcribeThenUnderstand(), k.secret)).body.data;
    await call("POST", `/v1/projects/${t.projectId}/api-keys/${k.apiKeyId}/revoke`, { key: t.workspaceKey });
    await completeTranscribeStep(w);
    const ended = await waitFor("the workflow's end", async () => {
      const x = await getWorkflow(w.workflowId);
      return x.status === "failed" ? x : null;
    });
    expect(step(ended, "metadata")).toMatchObject({ status: "failed", jobId: null, error: { code: "step_not_created" } });
    expect(step(ended, "metadata").error?.message).toMatch(/was revoked/);
  });

  it("completes when every step completed", async () => {
    const body = { steps: [{ id: "transcribe", ...transcriptionBody(t, await sourceKey()) }] };
    const w = (await createWorkflow(body)).body.data;
    await completeTranscribeStep(w);
    const ended = await waitFor("completed", async () => {
      const x = await getWorkflow(w.workflowId);
      return x.status === "completed" ? x : null;
    });
    expect(step(ended, "transcribe").status).toBe("completed");
    expect(ended.error).toBeNull();
  });

  it("cancelling a workflow cancels its running jobs and the steps still waiting", async () => {
    const w = (await createWorkflow(await transcribeThenUnderstand())).body.data;
    const res = await call<Workflow>("POST", `/v1/workflows/${w.workflowId}/cancel`, { key: t.projectKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ended = await waitFor("cancelled", async () => {
      const x = await getWorkflow(w.workflowId);
      return x.status === "cancelled" ? x : null;
    });
    expect((await getJob(t, step(w, "transcribe").jobId!)).status).toBe("cancelled");
    expect(step(ended, "metadata").status).toBe("cancelled");
    expect(ended.cancelRequestedAt).not.toBeNull();
  });

  it("a workflow that ended cannot be cancelled (409)", async () => {
    const w = (await createWorkflow(await transcribeThenUnderstand())).body.data;
    await call("POST", `/v1/workflows/${w.workflowId}/cancel`, { key: t.projectKey });
    await waitFor("cancelled", async () => (await getWorkflow(w.workflowId)).status === "cancelled");
    expectError(await call("POST", `/v1/workflows/${w.workflowId}/cancel`, { key: t.projectKey }), 409, "conflict");
  });

  it("lists the project's workflows, newest first, and never another project's", async () => {
    const mine = (await createWorkflow(await transcribeThenUnderstand())).body.data;
    const other = await createTenant({ plan: "enterprise" });
    const list = await call<Workflow[]>("GET", "/v1/workflows?limit=5", { key: t.projectKey });
    expect(list.body.data[0]?.workflowId).toBe(mine.workflowId);
    expect((await call<Workflow[]>("GET", "/v1/workflows", { key: other.projectKey })).body.data).toEqual([]);
    expectError(await call("GET", `/v1/workflows/${mine.workflowId}`, { key: other.projectKey }), 404, "notFound");
  });
});

describe("a workflow is checked whole at create", () => {
  it("a template naming no step is refused with its path", async () => {
    const body = { steps: [{ id: "metadata", serviceType: "metadata", input: { textSourceId: "{{nothing.textSourceId}}" } }] };
    const res = await createWorkflow(body);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details[0]).toEqual({ path: "steps.0.input.textSourceId", issue: "unknownStep:nothing" });
  });

  it("steps that wait for each other in a cycle are refused", async () => {
    const body = {
      steps: [
        { id: "a", serviceType: "metadata", input: { textSourceId: "{{b.textSourceId}}" } },
        { id: "b", serviceType: "metadata", input: { textSourceId: "{{a.textSourceId}}" } },
      ],
    };
    const res = await createWorkflow(body);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details[0]?.issue).toBe("dependencyCycle");
  });

  it("a step's invalid input is refused with the step's path, and no job is made", async () => {
    const before = (await call<Job[]>("GET", "/v1/jobs?limit=100", { key: t.projectKey })).body.data.length;
    const body = { steps: [{ id: "transcribe", serviceType: "transcription", input: { sourceType: "s3_direct" } }] };
    const res = await createWorkflow(body);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details.every((d) => d.path.startsWith("steps.0.input"))).toBe(true);
    expect((await call<Job[]>("GET", "/v1/jobs?limit=100", { key: t.projectKey })).body.data.length).toBe(before);
  });

  it("a reference a step names outright is checked at create (404 on its path)", async () => {
    const body = { steps: [{ id: "metadata", serviceType: "metadata", input: { textSourceId: "txt_doesnotexist" } }] };
    const res = await createWorkflow(body);
    expectError(res, 404, "notFound");
    expect(res.body.error?.details[0]?.path).toBe("steps.0.input.textSourceId");
  });

  it("a variable the steps use must be given", async () => {
    const body = {
      steps: [{ id: "transcribe", ...transcriptionBody(t, "{{vars.sourceKey}}") }],
    };
    const res = await createWorkflow(body);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details[0]).toEqual({ path: "variables.sourceKey", issue: "missingVariable" });
  });

  it("a trigger's fields are refused in a workflow no upload started", async () => {
    const body = { steps: [{ id: "transcribe", ...transcriptionBody(t, "{{trigger.key}}") }] };
    const res = await createWorkflow(body);
    expectError(res, 422, "validationError");
    expect(res.body.error?.details[0]?.issue).toBe("noTrigger");
  });

  it("the credits of all steps together are checked against the plan, and nothing is charged", async () => {
    const free = await createTenant({ plan: "free" });
    await patchSettings({ quotas: { free: { metadata_credits: 1 } } });
    try {
      const transcribe = transcriptionBody(free, await sourceKey());
      const body = {
        steps: [
          { id: "transcribe", ...transcribe },
          { id: "m1", serviceType: "metadata", input: { textSourceId: "{{transcribe.textSourceId}}" } },
          { id: "m2", serviceType: "metadata", input: { textSourceId: "{{transcribe.textSourceId}}" } },
        ],
      };
      const res = await createWorkflow(body, free.projectKey);
      expectError(res, 429, "quotaExceeded");
      expect(res.body.error?.details[0]).toEqual({ path: "steps", issue: "quotaExceeded:metadata_credits" });
      expect((await call<Job[]>("GET", "/v1/jobs", { key: free.projectKey })).body.data).toEqual([]);
    } finally {
      await patchSettings({ quotas: { free: { metadata_credits: 30 } } });
    }
  });

  it("a key without a step's service permission is refused (403)", async () => {
    const k = await projectKey(t, ["workflow:create", "job:create"]);
    const body = { steps: [{ id: "voice", serviceType: "voice_creation", input: { name: "x" } }] };
    expectError(await createWorkflow(body, k.secret), 403, "forbidden");
  });

  it("an Idempotency-Key answers the same workflow again, and refuses another body", async () => {
    const key = unique("idem");
    const body = await transcribeThenUnderstand();
    const first = await createWorkflow(body, t.projectKey, { "idempotency-key": key });
    const again = await createWorkflow(body, t.projectKey, { "idempotency-key": key });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.workflowId).toBe(first.body.data.workflowId);
    expectError(
      await createWorkflow({ steps: body.steps.slice(0, 1) }, t.projectKey, { "idempotency-key": key }),
      422,
      "idempotencyKeyReused",
    );
  });
});

describe("presets", () => {
  async function savePreset(name = unique("preset")): Promise<Preset> {
    const res = await call<Preset>("POST", "/v1/presets", {
      key: t.projectKey,
      body: {
        name,
        description: "transcribe, then metadata",
        steps: [
          { id: "transcribe", ...transcriptionBody(t, "{{vars.sourceKey}}") },
          { id: "metadata", serviceType: "metadata", input: { textSourceId: "{{transcribe.textSourceId}}" } },
        ],
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.data;
  }

  it("a saved preset names the variables its steps use", async () => {
    const p = await savePreset();
    expect(p.presetId).toMatch(/^pst_/);
    expect(p.variables).toEqual(["sourceKey"]);
    expect((await call<Preset>("GET", `/v1/presets/${p.presetId}`, { key: t.projectKey })).body.data.name).toBe(p.name);
  });

  it("a name is unique in its project (409)", async () => {
    const p = await savePreset();
    const res = await call("POST", "/v1/presets", { key: t.projectKey, body: { name: p.name, steps: p.steps } });
    expectError(res, 409, "conflict");
  });

  it("a preset whose steps cannot form a workflow is refused when saved", async () => {
    const res = await call("POST", "/v1/presets", {
      key: t.projectKey,
      body: { name: unique("bad"), steps: [{ id: "a", serviceType: "metadata", input: { textSourceId: "{{a.textSourceId}}" } }] },
    });
    expectError(res, 422, "validationError");
  });

  it("a workflow made from a preset fills its variables and names the preset", async () => {
    const p = await savePreset();
    const key = await sourceKey();
    const res = await createWorkflow({ presetId: p.presetId, variables: { sourceKey: key } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.data.presetId).toBe(p.presetId);
    const job = await getJob(t, step(res.body.data, "transcribe").jobId!);
    expect(job.input["sourceKey"]).toBe(key);
  });

  it("replacing and deleting a preset", async () => {
    const p = await savePreset();
    const put = await call<Preset>("PUT", `/v1/presets/${p.presetId}`, {
      key: t.projectKey,
      body: { name: p.name, description: null, steps: p.steps.slice(0, 1) },
    });
    expect(put.body.data.steps.length).toBe(1);
    expect((await call("DELETE", `/v1/presets/${p.presetId}`, { key: t.projectKey })).status).toBe(200);
    expectError(await call("GET", `/v1/presets/${p.presetId}`, { key: t.projectKey }), 404, "notFound");
  });
});
