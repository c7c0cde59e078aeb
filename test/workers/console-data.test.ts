import { beforeAll, describe, expect, it } from "vitest";
import { call } from "./helpers/api";
import { signedIn, type Browser } from "./helpers/console";
import { open, submitForm } from "./helpers/console-pages";
import { createTenant, type Tenant } from "./helpers/tenant";
import { recordRedaction } from "./helpers/redaction";
import { completedTranscript } from "./helpers/transcripts";

/**
 * The console's "Your data" page and transcript deletion: admins set the project's data policy,
 * read the audit log and delete the project; members see the policy only.
 */

let t: Tenant;
let admin: Browser;
let member: Browser;
beforeAll(async () => {
  t = await createTenant({ plan: "enterprise" });
  ({ browser: admin } = await signedIn(t, "admin"));
  ({ browser: member } = await signedIn(t, "member"));
});

const policyForm = (b: Browser, fields: Record<string, string>) =>
  submitForm(b, "/console/data/policy", { _csrf: b.csrfToken, redaction: "optional", ...fields });
const apiPolicy = async () =>
  (await call<Record<string, unknown>>("GET", `/v1/projects/${t.projectId}`, { key: t.workspaceKey })).body.data["dataPolicy"];

describe("redaction and staleness on the transcript page", () => {
  it("shows what was redacted, by type and engine", async () => {
    const { textSourceId } = await completedTranscript(t, ["call me at [EMAIL]"]);
    await recordRedaction(textSourceId, [{ type: "EMAIL", start: 0.5, end: 1 }]);
    const page = await open(admin, `/console/transcripts/${textSourceId}`);
    expect(page.html).toContain("1 redacted (EMAIL 1) by test-detector");
  });

  it("says the files in the bucket are stale once the transcript was edited", async () => {
    const { textSourceId } = await completedTranscript(t, ["hello there"]);
    expect((await open(admin, `/console/transcripts/${textSourceId}`)).html).toContain("up to date");
    await call("PATCH", `/v1/transcriptions/${textSourceId}/segments`, {
      key: t.projectKey,
      body: { revision: 1, segments: [{ id: 0, text: "hello again" }] },
    });
    expect((await open(admin, `/console/transcripts/${textSourceId}`)).html).toContain("stale: they hold revision 1");
  });
});

describe("the data page", () => {
  it("an admin's policy form saves retention, redaction and consent on the project", async () => {
    const res = await policyForm(admin, { retentionDays: "45", jobRetentionDays: "", redaction: "required", requireConsent: "true" });
    expect(res.status).toBe(303);
    expect(await apiPolicy()).toMatchObject({
      retentionDays: 45,
      jobRetentionDays: null,
      redaction: "required",
      voiceCloning: { requireConsent: true },
    });
    expect((await open(admin, "/console/data")).html).toContain('value="45"');
  });

  it("a retention outside 1–3650 days is refused on the page, and nothing changes", async () => {
    const before = await apiPolicy();
    const res = await policyForm(admin, { retentionDays: "0" });
    expect(res.status).toBe(422);
    expect(res.html).toContain("1–3650 days");
    expect(await apiPolicy()).toEqual(before);
  });

  it("a member sees the policy but neither the audit log nor the project's deletion, and cannot save", async () => {
    const page = await open(member, "/console/data");
    expect(page.html).toContain("Only a workspace admin can change the data policy");
    expect(page.html).not.toContain("Audit log");
    expect((await policyForm(member, { retentionDays: "5" })).status).toBe(403);
  });

  it("a transcript deleted from its page is gone, and the admin's audit log lists it with the person who did it", async () => {
    // A tenant of its own: the policy tests above made this file's tenant redact every transcript.
    const d = await createTenant({ plan: "enterprise" });
    const { browser } = await signedIn(d, "admin");
    const { textSourceId } = await completedTranscript(d, ["hello there"]);
    const res = await submitForm(browser, `/console/transcripts/${textSourceId}/delete`, { _csrf: browser.csrfToken });
    expect(res.status).toBe(303);
    expect((await call("GET", `/v1/transcriptions/${textSourceId}`, { key: d.projectKey })).status).toBe(404);
    const page = await open(browser, "/console/data");
    expect(page.html).toContain(textSourceId);
    expect(page.html).toContain(browser.session.user.email);
  });

  it("deleting the project needs its name typed exactly", async () => {
    const res = await submitForm(admin, "/console/data/delete-project", { _csrf: admin.csrfToken, confirmName: "not the name" });
    expect(res.status).toBe(422);
    expect((await call("GET", `/v1/projects/${t.projectId}`, { key: t.workspaceKey })).status).toBe(200);
  });

  it("an admin deletes the project: it is gone from the API and the session that did it is signed out", async () => {
    const doomed = await createTenant();
    const { browser } = await signedIn(doomed, "admin");
    const name = String(
      (await call<Record<string, unknown>>("GET", `/v1/projects/${doomed.projectId}`, { key: doomed.workspaceKey })).body.data["name"],
    );
    const res = await submitForm(browser, "/console/data/delete-project", { _csrf: browser.csrfToken, confirmName: name });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/sign-in?done=projectDeleted");
    expect((await call("GET", `/v1/projects/${doomed.projectId}`, { key: doomed.workspaceKey })).status).toBe(404);
  });
});
