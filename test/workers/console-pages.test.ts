import { env, exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { createUser, signedIn, signIn, SITE, type Browser } from "./helpers/console";
import { fetchPage, open, postForms, submitForm } from "./helpers/console-pages";
import type { TranslationSave, TranslationSource } from "../../contracts/services/translation";
import { call } from "./helpers/api";
import { fakeRunner, getJob, submitTranscription, waitFor, waitForStatus } from "./helpers/jobs";
import { putSource } from "./helpers/s3";
import { createTenant, unique, type Tenant } from "./helpers/tenant";
import { completedTranscript, type CompletedTranscript } from "./helpers/transcripts";
import { createJob, runRunnerStep, SHORT_SYNOPSIS, summaryDraft } from "./helpers/understanding";

/** The console's server-rendered pages (worker/console): sessions, workspace isolation, CSRF on every form. */

/** A Spanish translation of the transcript, completed by the test playing the runner. */
async function completedTranslation(tenant: Tenant, textSourceId: string): Promise<void> {
  const job = await createJob(tenant, "translation", { textSourceId, targetLanguage: "es" });
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
  const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
  const save: TranslationSave = {
    translationBackend: "apertium",
    model: "apertium:eng-spa",
    sourceLanguage: "en",
    targetLanguage: "es",
    transcriptRevision: 1,
    durationSec: source.durationSec,
    segments: source.segments.map((seg) => ({ ...seg, text: `[es] ${seg.text}`, sourceText: seg.text })),
    outputKeys: job.input["resolvedOutputKeys"] as TranslationSave["outputKeys"],
    glossary: { termsProtected: 0, missing: [] },
    timing: { translateSec: 0.01, segmentsPerSec: 300 },
  };
  await fakeRunner.call(task, "translation.save", save);
  await fakeRunner.complete(task, {
    translationId: String(job.input["translationId"]),
    textSourceId,
    sourceLanguage: "en",
    targetLanguage: "es",
    languageKey: "es",
    sourceLayer: "current",
    segmentCount: source.segments.length,
    durationSec: source.durationSec,
    translationBackend: "apertium",
    model: "apertium:eng-spa",
  });
  await waitForStatus(tenant, job.jobId, "completed");
}

let t: Tenant;
let other: Tenant;
let admin: Browser;
let transcript: CompletedTranscript;
let runningJobId: string;
let othersJobId: string;
let othersTranscript: CompletedTranscript;

beforeAll(async () => {
  [t, other] = await Promise.all([createTenant(), createTenant()]);
  ({ browser: admin } = await signedIn(t, "admin"));
  // Transcripts first: the fake runner leases whichever task is queued.
  transcript = await completedTranscript(t, ["hello there", "general kenobi"]);
  othersTranscript = await completedTranscript(other, ["not yours"]);
  await completedTranslation(t, transcript.textSourceId);
  runningJobId = (await submitTranscription(t)).jobId;
  othersJobId = (await submitTranscription(other)).jobId;
});

const PAGES = () => [
  { path: "/console/projects", content: t.projectId },
  { path: "/console/jobs", content: runningJobId },
  { path: `/console/jobs/${runningJobId}`, content: "Stages" },
  { path: "/console/submit", content: "Transcribe a video" },
  { path: `/console/transcripts/${transcript.textSourceId}`, content: "general kenobi" },
  { path: "/console/keys", content: "ci-key" },
  { path: "/console/connections", content: t.connectionId },
  { path: "/console/usage", content: "transcription jobs" },
  { path: "/console/catalog", content: "Search the project" },
  { path: "/console/account", content: "Change your password" },
  { path: "/console/data", content: "Data policy of" },
  { path: "/console/workflows", content: "No workflow yet." },
  { path: "/console/presets", content: "Create a preset" },
];

describe("pages for a signed-in user", () => {
  it("each page renders with status 200 and its key content", async () => {
    for (const p of PAGES()) {
      const page = await open(admin, p.path);
      expect(page.status, `${p.path}: ${page.html.slice(0, 300)}`).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/^text\/html/);
      expect(page.html, p.path).toContain(p.content);
    }
  });

  it("each page has the landmarks, the nav, the project switcher and the user's email", async () => {
    for (const p of PAGES()) {
      const { html } = await open(admin, p.path);
      expect(html).toMatch(/<main id="main"/);
      expect(html).toMatch(/<nav class="main" aria-label="Console">/);
      expect(html).toContain('name="projectId"');
      expect(html).toContain(admin.session.user.email);
      expect(html).toMatch(/<html lang="en">/);
    }
  });

  it("each page asks for a same-origin referrer policy, so the browser's form posts carry a real Origin", async () => {
    for (const p of [...PAGES(), { path: "/console/sign-in" }]) {
      const { html } = await fetchPage(p.path, p.path === "/console/sign-in" ? {} : { cookie: admin.cookie });
      expect(html, p.path).toContain('<meta name="referrer" content="same-origin"/>');
    }
  });

  it("every form that changes state carries the session's CSRF token", async () => {
    for (const p of PAGES()) {
      const forms = postForms((await open(admin, p.path)).html);
      expect(forms.length, p.path).toBeGreaterThan(0);
      for (const f of forms) expect(f.csrf, `${p.path} → ${f.action}`).toBe(admin.csrfToken);
    }
  });

  it("the job list passes every filter and sort to the list API", async () => {
    const ref = unique("ref");
    const mine = (await submitTranscription(t, { userMetadata: { customerJobRef: ref } })).jobId;
    const page = await open(
      admin,
      `/console/jobs?customerJobRef=${ref}&statuses=pending&statuses=queued&serviceTypes=transcription&sort=jobId&sortDir=asc&limit=10`,
    );
    expect(page.status).toBe(200);
    expect(page.html).toContain(mine);
    expect(page.html).not.toContain(runningJobId);
    expect(page.html).toMatch(/<input type="checkbox" name="statuses" value="queued" checked/);
    expect(page.html).toMatch(/<option value="jobId" selected/);
  });

  it("the job list pages with the API's page and limit, keeping the filters in the links", async () => {
    await submitTranscription(t);
    const first = await open(admin, "/console/jobs?limit=1&serviceTypes=transcription");
    expect(first.html).toMatch(/Page 1 of \d+/);
    expect(first.html).toContain("serviceTypes=transcription&amp;sort=created&amp;sortDir=desc&amp;page=2&amp;limit=1");
  });

  it("a bad filter shows the API's validation message instead of a list", async () => {
    const page = await open(admin, "/console/jobs?limit=1000");
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/class="error"[^>]*>[^<]*limit/);
  });

  it("the job page's live panel is served alone for the refresh script", async () => {
    const live = await open(admin, `/console/jobs/${runningJobId}/live`);
    expect(live.status).toBe(200);
    expect(live.html).toMatch(/^<div data-terminal="false">/);
    expect(live.headers.get("x-job-terminal")).toBe("false");
  });

  it("the transcript page plays the source through the console's media route and lists editable segments", async () => {
    const { html } = await open(admin, `/console/transcripts/${transcript.textSourceId}`);
    expect(html).toMatch(new RegExp(`<video data-player[^>]* src="/console/media/transcripts/${transcript.textSourceId}"`));
    expect(html).toMatch(/data-revision="1"/);
    expect(html).toContain('data-action="edit"');
  });

  it("the transcript page links a download per export format, and a link saves the file with the session cookie alone", async () => {
    const { html } = await open(admin, `/console/transcripts/${transcript.textSourceId}`);
    const links = [...html.matchAll(/<a href="([^"]+)" download="">/g)].map((m) => m[1]!.replace(/&amp;/g, "&"));
    const base = `/v1/transcriptions/${transcript.textSourceId}/export?format=`;
    expect(links).toEqual(["docx", "md", "srt", "vtt", "txt", "json"].map((f) => `${base}${f}`));
    const res = await exports.default.fetch(new Request(`${SITE}${links[1]}`, { headers: { cookie: admin.cookie } }));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe("attachment; filename=clip.md");
    expect(await res.text()).toContain("general kenobi");
  });

  it("a transcript that is not completed offers no downloads", async () => {
    const pending = String((await getJob(t, runningJobId)).input["textSourceId"]);
    const { html } = await open(admin, `/console/transcripts/${pending}`);
    expect(html).toContain("No segments");
    expect(html).not.toContain("/export?format=");
  });

  it("the media route streams the source from the bucket, honouring the browser's Range", async () => {
    const res = await exports.default.fetch(
      new Request(`${SITE}/console/media/transcripts/${transcript.textSourceId}`, {
        headers: { cookie: admin.cookie, range: "bytes=0-6" },
      }),
    );
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toMatch(/^bytes 0-6\//);
    expect(await res.text()).toBe("not rea");
  });

  it("a transcript of a presigned source renders, and its media is a 404: the console has no bucket to play it from", async () => {
    // What a presigned job records: no bucket, connection or key of ours (set on the file's transcript, then put back).
    const row = await env.DB.prepare("SELECT bucket, connection_id, source_key FROM transcripts WHERE id = ?")
      .bind(transcript.textSourceId)
      .first<{ bucket: string; connection_id: string; source_key: string }>();
    await env.DB.prepare("UPDATE transcripts SET bucket = NULL, connection_id = NULL, source_key = NULL WHERE id = ?")
      .bind(transcript.textSourceId)
      .run();
    try {
      const { html } = await open(admin, `/console/transcripts/${transcript.textSourceId}`);
      expect(html).toContain("a presigned URL");
      const media = await exports.default.fetch(
        new Request(`${SITE}/console/media/transcripts/${transcript.textSourceId}`, { headers: { cookie: admin.cookie } }),
      );
      expect(media.status).toBe(404);
    } finally {
      await env.DB.prepare("UPDATE transcripts SET bucket = ?, connection_id = ?, source_key = ? WHERE id = ?")
        .bind(row!.bucket, row!.connection_id, row!.source_key, transcript.textSourceId)
        .run();
    }
  });

  it("the transcript page links its translations, and a translation's page shows both languages", async () => {
    const { html } = await open(admin, `/console/transcripts/${transcript.textSourceId}`);
    const link = `/console/transcripts/${transcript.textSourceId}/translations/es`;
    expect(html).toContain(`href="${link}"`);
    expect(html).toContain("No dubbing yet.");
    const page = await open(admin, link);
    expect(page.status).toBe(200);
    expect(page.html).toContain("[es] general kenobi");
    expect(page.html).toContain("<td>general kenobi</td>");
  });

  describe("a catalog search runs only for the console's own navigations", () => {
    const catalog = (site?: string) =>
      fetchPage("/console/catalog?q=kenobi", { cookie: admin.cookie, ...(site ? { headers: { "sec-fetch-site": site } } : {}) });
    const RESULTS = /No passage matches\.|\/console\/transcripts\/txt_\w+\?t=/;

    it.each(["same-origin", "none"])("Sec-Fetch-Site: %s (the Search button, the address bar) runs it", async (site) => {
      const page = await catalog(site);
      expect(page.status).toBe(200);
      expect(page.html).not.toContain('class="error"');
      expect(page.html).toMatch(RESULTS);
    });

    it.each(["cross-site", "same-site", undefined])(
      "Sec-Fetch-Site: %s (a link from elsewhere) shows the query but runs nothing",
      async (site) => {
        const page = await catalog(site);
        expect(page.status).toBe(200);
        expect(page.html).toContain('value="kenobi"');
        expect(page.html).toContain("Press Search to run this search.");
        expect(page.html).not.toMatch(RESULTS);
      },
    );
  });

  it("an unknown dubbing is a 404 page", async () => {
    const page = await open(admin, "/console/dubbings/dub_unknown");
    expect(page.status).toBe(404);
    expect(page.html).toContain("dubbing not found");
  });

  it("the scripts and the stylesheet are served by the Worker", async () => {
    for (const [path, type] of [
      ["/console/assets/job-live.js", /javascript/],
      ["/console/assets/transcript.js", /javascript/],
      ["/console/assets/console.css", /text\/css/],
    ] as const) {
      const res = await fetchPage(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toMatch(type);
    }
  });
});

describe("the page policy and caching", () => {
  /** Every page a browser may render: the signed-in pages, sign-in, an error page. */
  const rendered = () => [
    ...PAGES().map((p) => ({ path: p.path, cookie: admin.cookie })),
    { path: "/console/sign-in", cookie: undefined },
    { path: "/console/dubbings/dub_unknown", cookie: admin.cookie },
  ];

  it("every page sends a policy that runs only the console's own scripts and styles", async () => {
    for (const p of rendered()) {
      const page = await fetchPage(p.path, p.cookie ? { cookie: p.cookie } : {});
      const csp = page.headers.get("content-security-policy") ?? "";
      const directives = new Map(csp.split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1).join(" ")]));
      expect(Object.fromEntries(directives), p.path).toEqual({
        "default-src": "'none'",
        "script-src": "'self'",
        "style-src": "'self'",
        "img-src": "'self'",
        "media-src": "'self'",
        "connect-src": "'self'",
        "form-action": "'self'",
        "frame-ancestors": "'self'",
        "base-uri": "'none'",
        "object-src": "'none'",
      });
    }
  });

  it("no page has an inline script, an inline event handler or an inline style", async () => {
    for (const p of rendered()) {
      const { html } = await fetchPage(p.path, p.cookie ? { cookie: p.cookie } : {});
      expect(html, p.path).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
      expect(html, p.path).not.toMatch(/<[^>]+\son[a-z]+=/i);
      expect(html, p.path).not.toMatch(/<[^>]+\sstyle=/i);
      expect(html, p.path).not.toMatch(/<style[\s>]/);
      expect(html, p.path).not.toMatch(/javascript:/i);
    }
  });

  it("every page, redirect and error is Cache-Control: no-store; the assets stay cacheable", async () => {
    for (const p of [...rendered(), { path: "/console/jobs", cookie: undefined }]) {
      const page = await fetchPage(p.path, p.cookie ? { cookie: p.cookie } : {});
      expect(page.headers.get("cache-control"), p.path).toBe("no-store");
    }
    expect((await fetchPage("/console/assets/job-live.js")).headers.get("cache-control")).toBe("public, max-age=300");
  });
});

describe("without a session", () => {
  it("every page redirects to sign-in, naming the page to come back to", async () => {
    for (const p of PAGES()) {
      const page = await fetchPage(p.path);
      expect(page.status, p.path).toBe(303);
      expect(page.location).toBe(`/console/sign-in?next=${encodeURIComponent(p.path)}`);
    }
  });

  it("an ended session redirects to sign-in too", async () => {
    const { browser } = await signedIn(t);
    await browser.post("/v1/console/sign-out");
    const page = await open(browser, "/console/jobs");
    expect(page.status).toBe(303);
  });

  it("the sign-in page is a labelled form that posts to the console", async () => {
    const page = await fetchPage("/console/sign-in");
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<label for="email">Email<\/label>/);
    expect(page.html).toMatch(/<label for="password">Password<\/label>/);
    expect(page.html).toContain('<form method="post" action="/console/sign-in">');
  });
});

describe("sign-in and sign-out through the forms", () => {
  it("the right password sets the session cookie and goes to the page asked for", async () => {
    const user = await createUser(t);
    const res = await fetchPage("/console/sign-in", { form: { email: user.email, password: user.password, next: "/console/usage" } });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/usage");
    expect(res.headers.get("set-cookie")).toMatch(/__Host-media_jobs_console=sk_con_/);
  });

  it("a wrong password shows the error on the form, with no cookie", async () => {
    const user = await createUser(t);
    const res = await fetchPage("/console/sign-in", { form: { email: user.email, password: "wrong password here" } });
    expect(res.status).toBe(401);
    expect(res.html).toContain("email or password is wrong");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("sign-in never sends the browser off the console", async () => {
    const user = await createUser(t);
    const res = await fetchPage("/console/sign-in", { form: { email: user.email, password: user.password, next: "//evil.example/x" } });
    expect(res.location).toBe("/console/jobs");
  });

  it("sign-out ends the session and clears the cookie", async () => {
    const { browser } = await signedIn(t);
    const res = await submitForm(browser, "/console/sign-out", { _csrf: browser.csrfToken });
    expect(res.status).toBe(303);
    expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    expect((await browser.get("/v1/console/session")).status).toBe(401);
  });
});

describe("a console user sees only their workspace", () => {
  it("the projects page lists the workspace's projects and none of another workspace's", async () => {
    const page = await open(admin, "/console/projects");
    expect(page.html).toContain(t.projectId);
    expect(page.html).not.toContain(other.projectId);
  });

  it("another workspace's job is not in the list", async () => {
    const { html } = await open(admin, "/console/jobs?limit=100");
    expect(html).not.toContain(othersJobId);
  });

  it("another workspace's job and transcript pages are 404", async () => {
    expect((await open(admin, `/console/jobs/${othersJobId}`)).status).toBe(404);
    expect((await open(admin, `/console/transcripts/${othersTranscript.textSourceId}`)).status).toBe(404);
  });

  it("another workspace's media is 404, and media without a session is 401", async () => {
    expect((await open(admin, `/console/media/transcripts/${othersTranscript.textSourceId}`)).status).toBe(404);
    expect((await fetchPage(`/console/media/transcripts/${transcript.textSourceId}`)).status).toBe(401);
  });

  it("another workspace's key cannot be revoked", async () => {
    const res = await submitForm(admin, `/console/keys/${other.projectKeyId}/revoke`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(404);
  });
});

describe("forms that change state", () => {
  it("cancel without the CSRF token is refused and the job keeps running", async () => {
    const jobId = (await submitTranscription(t)).jobId;
    const res = await submitForm(admin, `/console/jobs/${jobId}/cancel`, {});
    expect(res.status).toBe(403);
    expect((await getJob(t, jobId)).status).not.toMatch(/cancel/);
  });

  it("cancel from another origin is refused even with the token", async () => {
    const jobId = (await submitTranscription(t)).jobId;
    const res = await submitForm(admin, `/console/jobs/${jobId}/cancel`, { _csrf: admin.csrfToken }, "https://evil.example");
    expect(res.status).toBe(403);
  });

  it("cancel with the token cancels the job, recorded as a console action", async () => {
    const jobId = (await submitTranscription(t)).jobId;
    const res = await submitForm(admin, `/console/jobs/${jobId}/cancel`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/console/jobs/${jobId}?done=cancelled`);
    const job = await getJob(t, jobId);
    expect(job.status).toBe("cancelled");
    expect(job.cancelRequestedByKind).toBe("console");
  });

  it("a finished job's final webhook delivery has a Replay button that queues the event again", async () => {
    await call("PATCH", `/v1/projects/${t.projectId}`, { key: t.workspaceKey, body: { webhookUrl: "https://hooks.example.com/console" } });
    const jobId = (await submitTranscription(t)).jobId;
    await call("POST", `/v1/jobs/${jobId}/cancel`, { key: t.projectKey });
    await waitForStatus(t, jobId, "cancelled");
    const final = await waitFor("the cancelled delivery", async () =>
      (
        await call<Array<{ deliveryId: string; event: string }>>("GET", `/v1/jobs/${jobId}/webhook-deliveries`, { key: t.projectKey })
      ).body.data?.find((d) => d.event === "cancelled"),
    );
    const action = `/console/jobs/${jobId}/deliveries/${final.deliveryId}/replay`;
    expect(postForms((await open(admin, `/console/jobs/${jobId}`)).html).map((f) => f.action)).toContain(action);
    const res = await submitForm(admin, action, { _csrf: admin.csrfToken });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/console/jobs/${jobId}?done=replayed`);
  });

  it("a glossary term added from the transcript page is in the project glossary, and its Remove button deletes it", async () => {
    const page = `/console/transcripts/${transcript.textSourceId}`;
    const added = await submitForm(admin, `${page}/glossary`, { _csrf: admin.csrfToken, term: "kenobi", preferred: "Kenobi" });
    expect(added.location).toBe(`${page}?done=glossaryAdded`);
    const terms = async () =>
      (await call<Array<{ termId: string; term: string }>>("GET", "/v1/glossary", { key: t.projectKey })).body.data ?? [];
    const term = (await terms()).find((g) => g.term === "kenobi");
    expect(term).toBeDefined();
    const remove = `${page}/glossary/${term!.termId}/delete`;
    expect(postForms((await open(admin, page)).html).map((f) => f.action)).toContain(remove);
    const removed = await submitForm(admin, remove, { _csrf: admin.csrfToken });
    expect(removed.location).toBe(`${page}?done=glossaryRemoved`);
    expect((await terms()).map((g) => g.term)).not.toContain("kenobi");
  });

  it("a summarization's page shows its drafts, and its job page links to it", async () => {
    const job = await createJob(t, "summarization", { textSourceJobId: transcript.textSourceId });
    const done = await runRunnerStep(t, job, "summarization", async () => summaryDraft());
    const id = String(done.resultSummary?.["summarizationId"]);
    expect((await open(admin, `/console/jobs/${job.jobId}`)).html).toContain(`/console/summaries/${id}`);
    const page = await open(admin, `/console/summaries/${id}`);
    expect(page.status).toBe(200);
    for (const text of [SHORT_SYNOPSIS, ...summaryDraft().socialHooks, ...summaryDraft().keywords]) expect(page.html).toContain(text);
  });

  it("the transcription form submits a job and opens its page", async () => {
    const key = await putSource(`${unique("form")}/talk.mp4`);
    const res = await submitForm(admin, "/console/submit", {
      _csrf: admin.csrfToken,
      connectionId: t.connectionId,
      bucket: t.bucket,
      sourceKey: key,
      language: "en",
    });
    expect(res.status, res.html.slice(0, 400)).toBe(303);
    const jobId = /\/console\/jobs\/(job_\w+)/.exec(res.location ?? "")?.[1] ?? "";
    const job = await getJob(t, jobId);
    expect(job.createdByKind).toBe("console");
    expect(job.input).toMatchObject({ sourceKey: key, options: { language: "en" } });
  });

  it("a refused submission shows the API's message and keeps what was typed", async () => {
    const res = await submitForm(admin, "/console/submit", {
      _csrf: admin.csrfToken,
      connectionId: t.connectionId,
      bucket: t.bucket,
      sourceKey: "notes.txt",
    });
    expect(res.status).toBe(422);
    expect(res.html).toContain("unsupportedExtension");
    expect(res.html).toContain('value="notes.txt"');
  });

  it("the raw JSON form submits any body and shows a parse error in place", async () => {
    const bad = await submitForm(admin, "/console/submit/json", { _csrf: admin.csrfToken, body: "{nope" });
    expect(bad.status).toBe(422);
    expect(bad.html).toContain("The body is not JSON");
    const key = await putSource(`${unique("raw")}/talk.mp4`);
    const body = JSON.stringify({
      serviceType: "transcription",
      input: { sourceType: "s3_direct", connectionId: t.connectionId, bucket: t.bucket, sourceKey: key },
    });
    const ok = await submitForm(admin, "/console/submit/json", { _csrf: admin.csrfToken, body });
    expect(ok.status).toBe(303);
  });

  it("creating a key shows its secret once; the list never shows it again", async () => {
    const name = unique("key");
    const created = await submitForm(admin, "/console/keys", { _csrf: admin.csrfToken, name });
    expect(created.status).toBe(201);
    const secret = /<p class="secret" id="new-secret">(sk_prj_\w+)<\/p>/.exec(created.html)?.[1];
    expect(secret).toBeDefined();
    const list = await open(admin, "/console/keys");
    expect(list.html).toContain(name);
    expect(list.html).not.toContain(secret);
  });

  it("a revoked key stops working at once", async () => {
    const created = await submitForm(admin, "/console/keys", { _csrf: admin.csrfToken, name: unique("key") });
    const secret = /id="new-secret">(sk_prj_\w+)</.exec(created.html)?.[1] ?? "";
    const keyId = [...created.html.matchAll(/<tr data-key="(pak_\w+)"/g)].map((m) => m[1])[0] ?? "";
    const res = await submitForm(admin, `/console/keys/${keyId}/revoke`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(303);
    const call = await exports.default.fetch(new Request(`${SITE}/v1/jobs`, { headers: { authorization: `Bearer ${secret}` } }));
    expect(call.status).toBe(401);
  });

  it("a member cannot create keys", async () => {
    const { browser } = await signedIn(t, "member");
    const res = await submitForm(browser, "/console/keys", { _csrf: browser.csrfToken, name: unique("key") });
    expect(res.status).toBe(403);
  });

  it("a key form with a wrong token is refused", async () => {
    const res = await submitForm(admin, "/console/keys", { _csrf: "not-the-token", name: unique("key") });
    expect(res.status).toBe(403);
  });

  it("testing a connection reports each bucket", async () => {
    const res = await submitForm(admin, `/console/connections/${t.connectionId}/test`, { _csrf: admin.csrfToken });
    expect(res.status).toBe(200);
    expect(res.html).toContain("media-test: ok");
  });

  it("the account page changes the password with the current one and ends the user's other sessions", async () => {
    const user = await createUser(t);
    const [browser, elsewhere] = [await signIn(user.email, user.password), await signIn(user.email, user.password)];
    const newPassword = "another long console password";
    const wrong = await submitForm(browser, "/console/account/password", {
      _csrf: browser.csrfToken,
      currentPassword: "nope nope nope",
      newPassword,
    });
    expect(wrong.status).toBe(403);
    expect(wrong.html).toContain("the current password is wrong");
    const res = await submitForm(browser, "/console/account/password", {
      _csrf: browser.csrfToken,
      currentPassword: user.password,
      newPassword,
    });
    expect(res.status, res.html.slice(0, 300)).toBe(200);
    expect(res.html).toContain("Password changed. 1 other session ended.");
    expect((await elsewhere.get("/v1/console/session")).status).toBe(401);
    expect((await signIn(user.email, newPassword)).session.user.userId).toBe(user.userId);
  });

  it("the project switcher switches the session's project and comes back", async () => {
    const user = await createUser(t, { role: "admin" });
    const browser = await signIn(user.email, user.password);
    const res = await submitForm(browser, "/console/project", { _csrf: browser.csrfToken, projectId: t.projectId, back: "/console/usage" });
    expect(res.status).toBe(303);
    expect(res.location).toBe("/console/usage?done=project");
  });
});
