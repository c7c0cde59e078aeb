import { env } from "cloudflare:workers";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { StoredTrigger } from "../../contracts/triggers";
import type { Preset, Workflow } from "../../contracts/workflows";
import { call } from "./helpers/api";
import { signedIn, SITE, type Browser } from "./helpers/console";
import { open, postForms, submitForm } from "./helpers/console-pages";
import { cancelUnfinished, transcriptionBody, waitFor } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createConnection, createTenant, unique, type Tenant } from "./helpers/tenant";

/**
 * The console's Workflows and Presets pages and the upload triggers on its storage page (issue 26):
 * each renders what the API answers, each form calls the API with the session's CSRF token, and the
 * API's refusals are shown on the page.
 */

let t: Tenant;
let admin: Browser;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  ({ browser: admin } = await signedIn(t, "admin"));
});
afterEach(async () => {
  await cancelUnfinished(t);
});

const sourceKey = () => putSource(`${unique("cwf")}/clip.mp4`);

/** A transcription, then the metadata of what it heard: the second step waits with no job. */
async function transcribeThenMetadata() {
  return {
    steps: [
      { id: "transcribe", ...transcriptionBody(t, await sourceKey()) },
      { id: "metadata", serviceType: "metadata", input: { textSourceId: "{{transcribe.textSourceId}}" } },
    ],
  };
}

async function createWorkflow(body: unknown, tenant = t): Promise<Workflow> {
  const res = await call<Workflow>("POST", "/v1/workflows", { key: tenant.projectKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const getWorkflow = async (id: string) => (await call<Workflow>("GET", `/v1/workflows/${id}`, { key: t.projectKey })).body.data;

/** A preset whose one step transcribes the object named by `{{vars.sourceKey}}`. */
async function createPreset(name = unique("preset")): Promise<Preset> {
  const res = await call<Preset>("POST", "/v1/presets", {
    key: t.projectKey,
    body: { name, description: "transcribe one upload", steps: [{ id: "transcribe", ...transcriptionBody(t, "{{vars.sourceKey}}") }] },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

/** A preset an upload trigger can start: its step names the uploaded object through `{{trigger.…}}`. */
async function createUploadPreset(): Promise<Preset> {
  const res = await call<Preset>("POST", "/v1/presets", {
    key: t.projectKey,
    body: {
      name: unique("on-upload"),
      steps: [
        {
          id: "transcribe",
          serviceType: "transcription",
          input: {
            sourceType: "s3_direct",
            connectionId: "{{trigger.connectionId}}",
            bucket: "{{trigger.bucket}}",
            sourceKey: "{{trigger.key}}",
          },
        },
      ],
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data;
}

const putTriggers = (connectionId: string, triggers: unknown[]) =>
  call<{ triggers: StoredTrigger[]; eventSecret?: string }>("PUT", `/v1/storage-connections/${connectionId}/triggers`, {
    key: t.projectKey,
    body: { triggers },
  });

const connectionTriggers = async (connectionId: string) =>
  (await call<{ triggers: StoredTrigger[] }>("GET", `/v1/storage-connections/${connectionId}`, { key: t.projectKey })).body.data.triggers;

/** The table row a page renders for one record (`data-step="transcribe"`, `data-preset="pst_…"`). */
function row(html: string, attr: string, id: string): string {
  return new RegExp(`<tr ${attr}="${id}">([\\s\\S]*?)</tr>`).exec(html)?.[1] ?? "";
}

describe("the workflows page", () => {
  it("lists the project's workflows newest first, with their status, steps and preset", async () => {
    const preset = await createPreset();
    const older = await createWorkflow(await transcribeThenMetadata());
    const newer = await createWorkflow({ presetId: preset.presetId, variables: { sourceKey: await sourceKey() } });
    const { status, html } = await open(admin, "/console/workflows");
    expect(status).toBe(200);
    expect(html).toContain(older.workflowId);
    expect(html.indexOf(newer.workflowId)).toBeGreaterThan(-1);
    expect(html.indexOf(newer.workflowId)).toBeLessThan(html.indexOf(older.workflowId));
    expect(row(html, "data-workflow", newer.workflowId)).toContain(preset.name);
    expect(row(html, "data-workflow", older.workflowId)).toContain("0 of 2 completed");
    expect(row(html, "data-workflow", older.workflowId)).toContain('class="badge s-running"');
  });

  it("names the object that started a triggered workflow", async () => {
    const connectionId = await createConnection(t.projectKey);
    const preset = await createUploadPreset();
    const secret = (await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "console-in/", presetId: preset.presetId }])).body.data
      .eventSecret;
    const key = `console-in/${unique("up")}.mp4`;
    await putSource(key);
    const event = {
      Records: [{ eventName: "ObjectCreated:Put", s3: { bucket: { name: t.bucket }, object: { key, eTag: unique("etag"), size: 10 } } }],
    };
    const ingest = await call<{ started: Array<{ workflowId: string }> }>("POST", `/v1/storage-connections/${connectionId}/events`, {
      rawBody: JSON.stringify(event),
      headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
    });
    const workflowId = ingest.body.data.started[0]?.workflowId ?? "";
    expect(workflowId, JSON.stringify(ingest.body)).toMatch(/^wfl_/);
    const { html } = await open(admin, "/console/workflows");
    expect(row(html, "data-workflow", workflowId)).toContain(`${t.bucket}/${key}`);
  });

  it("pages with the API's page and limit", async () => {
    await createWorkflow(await transcribeThenMetadata());
    await createWorkflow(await transcribeThenMetadata());
    const { html } = await open(admin, "/console/workflows?limit=1");
    expect(html).toMatch(/Page 1 of \d+/);
    expect(html).toContain('href="/console/workflows?page=2&amp;limit=1"');
  });

  it("a bad page size shows the API's validation message instead of a list", async () => {
    const { status, html } = await open(admin, "/console/workflows?limit=1000");
    expect(status).toBe(200);
    expect(html).toMatch(/class="error"[^>]*>[^<]*limit/);
  });

  it("a session without workflow:read gets the API's 403 on the page", async () => {
    const { browser } = await signedIn(t, "admin");
    await env.DB.prepare("UPDATE api_keys SET permissions = ? WHERE id = ?")
      .bind(JSON.stringify(["job:read", "job:list"]), browser.session.sessionId)
      .run();
    const { status, html } = await open(browser, "/console/workflows");
    expect(status).toBe(403);
    expect(html).toMatch(/class="error"[^>]*>[^<]*workflow:read/);
  });
});

describe("a workflow's page", () => {
  it("shows each step: its id, service, dependencies, status and its job, linked", async () => {
    const w = await createWorkflow(await transcribeThenMetadata());
    const { html } = await open(admin, `/console/workflows/${w.workflowId}`);
    const transcribe = row(html, "data-step", "transcribe");
    expect(transcribe).toContain("transcription");
    expect(transcribe).toContain(`href="/console/jobs/${w.steps[0]?.jobId}"`);
    const metadata = row(html, "data-step", "metadata");
    expect(metadata).toContain("<td>transcribe</td>");
    expect(metadata).toContain('class="badge s-waiting"');
    expect(metadata).toContain("not made yet");
  });

  it("shows why a step did not run when the step it waits for was cancelled", async () => {
    const w = await createWorkflow(await transcribeThenMetadata());
    await call("POST", `/v1/jobs/${w.steps[0]?.jobId}/cancel`, { key: t.projectKey });
    await waitFor("the workflow's end", async () => ((await getWorkflow(w.workflowId)).endedAt ? true : null));
    const metadata = row((await open(admin, `/console/workflows/${w.workflowId}`)).html, "data-step", "metadata");
    expect(metadata).toContain('class="badge s-skipped"');
    expect(metadata).toContain("dependency_failed");
    expect(metadata).toContain("not run: step transcribe");
  });

  it("Cancel with the token cancels the workflow through the API: its waiting step at once", async () => {
    const w = await createWorkflow(await transcribeThenMetadata());
    const action = `/console/workflows/${w.workflowId}/cancel`;
    expect(postForms((await open(admin, `/console/workflows/${w.workflowId}`)).html).map((f) => f.action)).toContain(action);
    const res = await submitForm(admin, action, { _csrf: admin.csrfToken });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/console/workflows/${w.workflowId}?done=workflowCancelled`);
    const after = await getWorkflow(w.workflowId);
    expect(after.status).toMatch(/^cancell/);
    expect(after.steps.find((s) => s.id === "metadata")?.status).toBe("cancelled");
  });

  it("Cancel without the CSRF token is refused and the workflow keeps running", async () => {
    const w = await createWorkflow(await transcribeThenMetadata());
    const res = await submitForm(admin, `/console/workflows/${w.workflowId}/cancel`, {});
    expect(res.status).toBe(403);
    expect((await getWorkflow(w.workflowId)).status).toBe("running");
  });

  it("an ended workflow offers no Cancel", async () => {
    const w = await createWorkflow(await transcribeThenMetadata());
    await call("POST", `/v1/workflows/${w.workflowId}/cancel`, { key: t.projectKey });
    await waitFor("the workflow's end", async () => ((await getWorkflow(w.workflowId)).endedAt ? true : null));
    const forms = postForms((await open(admin, `/console/workflows/${w.workflowId}`)).html).map((f) => f.action);
    expect(forms).not.toContain(`/console/workflows/${w.workflowId}/cancel`);
  });

  it("another workspace's workflow is a 404 page", async () => {
    const other = await createTenant({ plan: "enterprise" });
    const theirs = await createWorkflow({ steps: [{ id: "transcribe", ...transcriptionBody(other, await sourceKey()) }] }, other);
    const page = await open(admin, `/console/workflows/${theirs.workflowId}`);
    expect(page.status).toBe(404);
    expect(page.html).toContain("workflow not found");
    await cancelUnfinished(other);
  });
});

describe("the presets page", () => {
  it("lists each preset with its steps, its variables and the triggers that start it", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "listed/", presetId: preset.presetId }]);
    const line = row((await open(admin, "/console/presets")).html, "data-preset", preset.presetId);
    expect(line).toContain(preset.name);
    expect(line).toContain("transcribe (transcription)");
    expect(line).toContain("<code>sourceKey</code>");
    expect(line).toContain(`${t.bucket}/listed/`);
  });

  it("a preset made from the JSON form is among the project's presets", async () => {
    const name = unique("made");
    const steps = JSON.stringify([{ id: "transcribe", ...transcriptionBody(t, "{{vars.sourceKey}}") }]);
    const res = await submitForm(admin, "/console/presets", { _csrf: admin.csrfToken, name, description: "from the page", steps });
    expect(res.status, res.html.slice(0, 400)).toBe(303);
    expect(res.location).toBe("/console/presets?done=presetCreated");
    const got = await call<Preset>("GET", `/v1/presets/${name}`, { key: t.projectKey });
    expect(got.body.data).toMatchObject({ name, description: "from the page", variables: ["sourceKey"] });
  });

  it("steps that are not JSON are refused on the page, keeping what was typed", async () => {
    const res = await submitForm(admin, "/console/presets", { _csrf: admin.csrfToken, name: unique("bad"), steps: "[{nope" });
    expect(res.status).toBe(422);
    expect(res.html).toContain("The steps are not JSON");
    expect(res.html).toContain("[{nope</textarea>");
  });

  it("a preset the API refuses shows its message and the paths it names", async () => {
    const step = { id: "transcribe", ...transcriptionBody(t, "{{vars.sourceKey}}") };
    const res = await submitForm(admin, "/console/presets", {
      _csrf: admin.csrfToken,
      name: unique("dup"),
      steps: JSON.stringify([step, step]),
    });
    expect(res.status).toBe(422);
    expect(res.html).toMatch(/class="error"[^>]*>Not created: [^<]*\(steps[^<]*duplicateStepId/);
  });

  it("Delete removes the preset", async () => {
    const preset = await createPreset();
    const res = await submitForm(admin, `/console/presets/${preset.presetId}/delete`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/presets?done=presetDeleted");
    expect((await call("GET", `/v1/presets/${preset.presetId}`, { key: t.projectKey })).status).toBe(404);
  });

  it("a preset a trigger uses is kept, and the page says which connection uses it", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "kept/", presetId: preset.presetId }]);
    const res = await submitForm(admin, `/console/presets/${preset.presetId}/delete`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(409);
    expect(res.html).toMatch(new RegExp(`class="notice"[^>]*>Not deleted: [^<]*${connectionId}`));
    expect((await call("GET", `/v1/presets/${preset.presetId}`, { key: t.projectKey })).status).toBe(200);
  });

  it("Run starts the preset's workflow with the variables typed and opens its page", async () => {
    const preset = await createPreset();
    const key = await sourceKey();
    const res = await submitForm(admin, `/console/presets/${preset.presetId}/run`, { _csrf: admin.csrfToken, "var.sourceKey": key });
    expect(res.status, res.html.slice(0, 400)).toBe(303);
    const workflowId = /^\/console\/workflows\/(wfl_\w+)$/.exec(res.location ?? "")?.[1] ?? "";
    const w = await getWorkflow(workflowId);
    expect(w).toMatchObject({ presetId: preset.presetId, variables: { sourceKey: key }, createdByLabel: admin.session.user.email });
  });

  it("Run without a variable the preset needs shows the API's refusal", async () => {
    const preset = await createPreset();
    const res = await submitForm(admin, `/console/presets/${preset.presetId}/run`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(422);
    expect(res.html).toMatch(/class="error"[^>]*>Not started: [^<]*missingVariable/);
  });
});

describe("upload triggers on the storage page", () => {
  const addTrigger = (b: Browser, connectionId: string, fields: Record<string, string>) =>
    submitForm(b, `/console/connections/${connectionId}/triggers`, { _csrf: b.csrfToken, bucket: t.bucket, ...fields });

  it("lists each connection's triggers with the preset they start", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "shown/", suffixes: [".mov"], presetId: preset.presetId }]);
    const { html } = await open(admin, "/console/connections");
    const section = new RegExp(`<section[^>]*data-triggers="${connectionId}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? "";
    expect(section).toContain("<code>shown/</code>");
    expect(section).toContain(".mov");
    expect(section).toContain(preset.name);
  });

  it("the first trigger set from the page shows the event secret once, with the events URL and a MinIO example", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    const res = await addTrigger(admin, connectionId, { prefix: "uploads/", suffixes: ".mp4, .mov", presetId: preset.presetId });
    expect(res.status, res.html.slice(0, 400)).toBe(200);
    const secret = /<p class="secret" id="event-secret">(whsec_\w+)<\/p>/.exec(res.html)?.[1];
    expect(secret).toBeDefined();
    const eventsUrl = `${SITE}/v1/storage-connections/${connectionId}/events`;
    expect(res.html).toContain(`<code id="events-url">${eventsUrl}</code>`);
    expect(res.html).toContain(`mc admin config set myminio notify_webhook:media-jobs endpoint=&quot;${eventsUrl}&quot;`);
    expect(await connectionTriggers(connectionId)).toEqual([
      { bucket: t.bucket, prefix: "uploads/", suffixes: [".mp4", ".mov"], presetId: preset.presetId, enabled: true },
    ]);
    expect((await open(admin, "/console/connections")).html).not.toContain(secret);
  });

  it("a trigger added to a list keeps the others and shows no secret", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "first/", presetId: preset.presetId }]);
    const res = await addTrigger(admin, connectionId, { prefix: "second/", presetId: preset.presetId });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/connections?done=triggersSaved");
    expect((await connectionTriggers(connectionId)).map((x) => x.prefix)).toEqual(["first/", "second/"]);
  });

  it("Remove takes one trigger off the list and keeps the others", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    await putTriggers(connectionId, [
      { bucket: t.bucket, prefix: "stay/", presetId: preset.presetId },
      { bucket: t.bucket, prefix: "go/", presetId: preset.presetId },
    ]);
    const action = `/console/connections/${connectionId}/triggers/remove`;
    expect(postForms((await open(admin, "/console/connections")).html).map((f) => f.action)).toContain(action);
    const res = await submitForm(admin, action, { _csrf: admin.csrfToken, bucket: t.bucket, prefix: "go/", presetId: preset.presetId });
    expect(res.status).toBe(303);
    expect((await connectionTriggers(connectionId)).map((x) => x.prefix)).toEqual(["stay/"]);
  });

  it("a trigger the API refuses shows its message and sets nothing", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    const res = await addTrigger(admin, connectionId, { bucket: "not-this-bucket", prefix: "", presetId: preset.presetId });
    expect(res.status).toBe(422);
    expect(res.html).toMatch(/class="error"[^>]*>[^<]*bucketNotInConnection/);
    expect(await connectionTriggers(connectionId)).toEqual([]);
  });

  it("the trigger form without the CSRF token is refused and sets nothing", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    const res = await submitForm(admin, `/console/connections/${connectionId}/triggers`, {
      bucket: t.bucket,
      prefix: "",
      presetId: preset.presetId,
    });
    expect(res.status).toBe(403);
    expect(await connectionTriggers(connectionId)).toEqual([]);
  });

  it("a new event secret is shown once and the old one stops working", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    const old = (await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "rot/", presetId: preset.presetId }])).body.data.eventSecret;
    const res = await submitForm(admin, `/console/connections/${connectionId}/event-secret`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(200);
    const fresh = /id="event-secret">(whsec_\w+)</.exec(res.html)?.[1];
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(old);
    const event = JSON.stringify({ Records: [] });
    const post = (secret: string | undefined) =>
      call("POST", `/v1/storage-connections/${connectionId}/events`, {
        rawBody: event,
        headers: { "content-type": "application/json", authorization: `Bearer ${secret}` },
      });
    expect((await post(old)).status).toBe(401);
    expect((await post(fresh)).status).toBe(202);
  });
});

describe("the new pages' forms", () => {
  it("every form that changes state on the workflow, presets and storage pages carries the session's CSRF token", async () => {
    const preset = await createPreset();
    const connectionId = await createConnection(t.projectKey);
    await putTriggers(connectionId, [{ bucket: t.bucket, prefix: "forms/", presetId: preset.presetId }]);
    const w = await createWorkflow(await transcribeThenMetadata());
    for (const path of [`/console/workflows/${w.workflowId}`, "/console/presets", "/console/connections"]) {
      const forms = postForms((await open(admin, path)).html);
      // The header's two forms (project switch, sign-out) and at least one of the page's own.
      expect(forms.length, path).toBeGreaterThan(2);
      for (const f of forms) expect(f.csrf, `${path} → ${f.action}`).toBe(admin.csrfToken);
    }
  });
});
