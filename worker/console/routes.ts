import { Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Job } from "../../contracts/job";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { safeEqual } from "../platform/crypto";
import { callApi, loadSession, mustGet, PageError, type ApiFetch, type Ctx } from "./api";
import type { Shell } from "./layout";
import { AccountPage } from "./pages/account";
import { CatalogPage, type SearchHit } from "./pages/catalog";
import { ClipsPage, type ClipGeneration } from "./pages/clips";
import { ConnectionsPage, type ConnectionTest, type EventSecretReveal, type PresetChoice } from "./pages/connections";
import { ErrorPage } from "./pages/error";
import { isTerminal } from "../../contracts/service-types";
import { JobPage, LivePanel, type Delivery, type Progress } from "./pages/job";
import { JobsPage, jobListSearch, readJobListQuery, type Pagination } from "./pages/jobs";
import { KeysPage } from "./pages/keys";
import { SignInPage } from "./pages/sign-in";
import { SubmitPage, type Connection, type SubmitForm } from "./pages/submit";
import { ProjectsPage, type ProjectView } from "./pages/projects";
import { SummaryPage, type Summary } from "./pages/summary";
import { TranscriptPage, type GlossaryTerm, type Transcript } from "./pages/transcript";
import { UsagePage, type WorkspaceView } from "./pages/usage";
import { DataPage } from "./pages/data";
import { PresetsPage, variableField, type PresetForm } from "./pages/presets";
import { readWorkflowListQuery, workflowListSearch, WorkflowPage, WorkflowsPage } from "./pages/workflows";
import type { Preset, Workflow } from "../../contracts/workflows";
import type { StoredTrigger } from "../../contracts/triggers";
import { patchedDataPolicy } from "../accounts/data-policy";
import { DataPolicyPatchSchema, effectiveDataPolicy } from "../../contracts/data-policy";
import { listAuditEvents, publicAuditEvent } from "../deletion/audit-log";
import { startProjectDeletion } from "../deletion/deletions";
import { runProjectDeletionNow } from "../deletion/retention";
import { projects } from "../db/schema";
import { and, eq } from "drizzle-orm";
import { DubbingPage, TranslationPage, type Dubbing, type DubbingEntry, type Translation, type TranslationEntry } from "./pages/versions";
import { createKey, listProjectKeys, revokeProjectKey } from "../accounts/service";
import type { MediaKind } from "./media-types";
import { streamObject, testConnection } from "./project-data";
import { CONSOLE_SCRIPTS } from "./scripts";
import { checkSameOrigin } from "../auth/session";
import { CONSOLE_CSS } from "./styles";

/**
 * The web console (issue 10), mounted at /console before `authenticate`: server-rendered pages that
 * check the cookie session themselves (no session → the sign-in page) and read and change data
 * through the public API in process (`api`), so every rule of the API holds in the console too.
 * Forms post here with the session's CSRF token in `_csrf`; the handler forwards it as X-CSRF-Token.
 */

/**
 * Fixed messages a redirect can ask for (`?done=`): never text taken from the URL. A Map, so a name
 * from the URL (`__proto__`, `constructor`) cannot reach Object.prototype.
 */
const DONE = new Map<string, string>(
  Object.entries({
    cancelled: "Cancel requested.",
    replayed: "The event was queued for delivery again; its attempts appear below as they happen.",
    glossaryAdded: "Term added; the project's transcripts have a rebuilt glossary layer.",
    glossaryRemoved: "Term removed; the project's transcripts have a rebuilt glossary layer.",
    speakerRenamed: "Speaker name saved.",
    speakersMerged: "Speakers merged.",
    segmentMoved: "Segment moved to the speaker chosen.",
    project: "Switched project.",
    revoked: "Key revoked.",
    connectionCreated: "Storage connection added.",
    deactivated: "Storage connection deactivated.",
    signedOut: "You are signed out.",
    policySaved: "Data policy saved.",
    projectDeleted: "The project is being deleted: its keys are revoked and its data is erased in the background (see the audit log).",
    transcriptDeleted: "Transcript deleted, with everything made from it.",
    workflowCancelled: "Cancel requested: waiting steps are cancelled, running jobs stop after their current stage.",
    presetCreated: "Preset created.",
    presetDeleted: "Preset deleted.",
    triggersSaved: "Triggers saved.",
  }),
);

type Form = Record<string, string>;
type Page = (c: Ctx, shell: Shell) => Promise<Response>;

async function readForm(c: Ctx): Promise<Form> {
  const body = await c.req.parseBody();
  const out: Form = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
  return out;
}

/** Only the console's own pages are places to come back to after sign-in or a switch. */
function safeNext(next: string | undefined): string {
  return next && next.startsWith("/console/") && !next.startsWith("//") && !next.includes("\\") ? next : "/console/jobs";
}

function here(c: Ctx): string {
  const u = new URL(c.req.url);
  return u.pathname + u.search;
}

/** A path parameter of the route that matched (typed loosely because page handlers share one signature). */
const param = (c: Ctx, name: string): string => c.req.param(name) ?? "";

const done = (c: Ctx) => DONE.get(c.req.query("done") ?? "");

/** Copies the API's Set-Cookie (the session cookie, or its clearing) onto the page's response. */
function passCookies(from: Headers, to: Headers) {
  for (const v of from.getSetCookie()) to.append("set-cookie", v);
}

function seeOther(location: string, headers = new Headers()): Response {
  headers.set("location", location);
  return new Response(null, { status: 303, headers });
}

function apiMessage(r: { error: { message: string; details?: Array<{ path: string; issue: string }> } | null }): string {
  if (!r.error) return "";
  const details = (r.error.details ?? []).map((d) => `${d.path}: ${d.issue}`).join("; ");
  return details ? `${r.error.message} (${details})` : r.error.message;
}

/** A whole number typed in a form, as a number; anything else as typed, for the API's validation to name. */
function formInt(value: string | undefined): number | string {
  return value !== undefined && /^\d{1,15}$/.test(value) ? Number(value) : (value ?? "");
}

/** Why the API refused an edit, for the page's flash: a stale revision said plainly, anything else as the API says it. */
function refusal(r: { status: number; error: { message: string; details?: Array<{ path: string; issue: string }> } | null }): string {
  if (r.status === 409) {
    const now = /^staleRevision:(\d+)$/.exec(r.error?.details?.find((d) => d.path === "revision")?.issue ?? "")?.[1];
    return `Not saved: the transcript changed after this page was loaded${now ? ` (it is now at revision ${now})` : ""}. It is shown below as it is now; make the change again if it is still needed.`;
  }
  return `Not saved: ${apiMessage(r)}`;
}

export function consolePages(api: ApiFetch) {
  const app = new Hono<AppBindings>();

  /** A page for a signed-in user: no session sends the browser to sign in, then back here. */
  const page =
    (handler: Page) =>
    async (c: Ctx): Promise<Response> => {
      const session = await loadSession(c, api);
      if (!session) {
        const back = c.req.method === "GET" ? here(c) : "/console/jobs";
        return seeOther(`/console/sign-in?next=${encodeURIComponent(back)}`);
      }
      const projects = (await callApi<Shell["projects"]>(c, api, "GET", "/v1/console/projects")).data ?? [];
      const shell: Shell = { session, projects, here: here(c) };
      c.header("cache-control", "no-store");
      try {
        return await handler(c, shell);
      } catch (err) {
        if (!(err instanceof PageError)) throw err;
        return c.html(ErrorPage({ shell, status: err.status, message: err.message }), err.status as ContentfulStatusCode);
      }
    };

  /** Forwards a form to an API route with the form's CSRF token; the API checks the token and the origin. */
  const forward = <T = unknown>(c: Ctx, form: Form, method: string, path: string, body?: unknown) =>
    callApi<T>(c, api, method, path, { csrf: form["_csrf"] ?? "", ...(body !== undefined ? { body } : {}) });

  /** For actions the console does itself (keys, connection tests): the same two checks the API makes. */
  const checkConsoleCsrf = (c: Ctx, shell: Shell, form: Form) => {
    checkSameOrigin(c);
    if (!safeEqual(form["_csrf"] ?? "", shell.session.csrfToken))
      throw new PageError(403, "the form's CSRF token is wrong; reload the page and try again");
  };

  app.get("/assets/console.css", (c) =>
    c.body(CONSOLE_CSS, 200, { "content-type": "text/css; charset=utf-8", "cache-control": "public, max-age=300" }),
  );
  app.get("/assets/:name", (c) => {
    const script = CONSOLE_SCRIPTS.get(param(c, "name"));
    if (script === undefined) return c.text("not found", 404);
    return c.body(script, 200, { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=300" });
  });

  app.get("/", (c) => c.redirect("/console/jobs", 302));

  app.get("/sign-in", async (c) => {
    if (await loadSession(c, api)) return c.redirect(safeNext(c.req.query("next")), 302);
    c.header("cache-control", "no-store");
    return c.html(SignInPage({ next: safeNext(c.req.query("next")), notice: done(c) }));
  });

  app.post("/sign-in", async (c) => {
    const form = await readForm(c);
    const r = await callApi<unknown>(c, api, "POST", "/v1/console/sign-in", {
      body: { email: form["email"] ?? "", password: form["password"] ?? "" },
    });
    if (r.status !== 200) {
      const status = (r.status === 429 ? 429 : r.status === 403 ? 403 : 401) as ContentfulStatusCode;
      const message = r.status === 422 ? "Enter your email and password." : apiMessage(r);
      const retryAfter = r.headers.get("retry-after");
      if (retryAfter) c.header("Retry-After", retryAfter);
      return c.html(SignInPage({ next: safeNext(form["next"]), email: form["email"] ?? "", error: message }), status);
    }
    const headers = new Headers();
    passCookies(r.headers, headers);
    return seeOther(safeNext(form["next"]), headers);
  });

  app.post("/sign-out", async (c) => {
    const form = await readForm(c);
    const r = await forward(c, form, "POST", "/v1/console/sign-out");
    const headers = new Headers();
    passCookies(r.headers, headers);
    return seeOther(r.status === 200 ? "/console/sign-in?done=signedOut" : "/console/sign-in", headers);
  });

  app.post(
    "/project",
    page(async (c) => {
      const form = await readForm(c);
      const r = await forward(c, form, "POST", "/v1/console/session/project", { projectId: form["projectId"] ?? "" });
      if (r.status !== 200) throw new PageError(r.status, apiMessage(r));
      const back = new URL(safeNext(form["back"]), c.req.url);
      back.searchParams.set("done", "project");
      return seeOther(back.pathname + back.search);
    }),
  );

  app.get(
    "/projects",
    page(async (c, shell) => {
      const projects = (await mustGet<ProjectView[]>(c, api, "/v1/console/projects")).data;
      return c.html(ProjectsPage({ shell, projects, notice: done(c) }));
    }),
  );

  app.get(
    "/jobs",
    page(async (c, shell) => {
      const query = readJobListQuery(new URL(c.req.url));
      const r = await callApi<Job[]>(c, api, "GET", `/v1/jobs?${jobListSearch(query)}`);
      const pagination = (r.metadata["pagination"] as Pagination | undefined) ?? null;
      return c.html(JobsPage({ shell, query, jobs: r.data ?? [], pagination, error: r.error ? apiMessage(r) : undefined }));
    }),
  );

  const readJob = async (c: Ctx, jobId: string) => {
    const [job, progress] = await Promise.all([
      mustGet<Job>(c, api, `/v1/jobs/${encodeURIComponent(jobId)}`),
      callApi<Progress>(c, api, "GET", `/v1/jobs/${encodeURIComponent(jobId)}/progress`),
    ]);
    return { job: job.data, progress: progress.data };
  };

  app.get(
    "/jobs/:jobId",
    page(async (c, shell) => {
      const jobId = param(c, "jobId");
      const [{ job, progress }, deliveries] = await Promise.all([
        readJob(c, jobId),
        callApi<Delivery[]>(c, api, "GET", `/v1/jobs/${encodeURIComponent(jobId)}/webhook-deliveries`),
      ]);
      return c.html(JobPage({ shell, job, progress, deliveries: deliveries.data ?? [], notice: done(c) }));
    }),
  );

  // The live panel alone, for the job page's script: the same rendering as the page, refreshed in place.
  app.get("/jobs/:jobId/live", async (c) => {
    c.header("cache-control", "no-store");
    try {
      const { job, progress } = await readJob(c, param(c, "jobId"));
      c.header("x-job-status", job.status);
      c.header("x-job-terminal", String(isTerminal(job.status)));
      return c.html(LivePanel({ job, progress, now: Date.now() }));
    } catch (err) {
      if (err instanceof PageError) return c.text(err.message, err.status as ContentfulStatusCode);
      throw err;
    }
  });

  app.post(
    "/jobs/:jobId/cancel",
    page(async (c) => {
      const jobId = param(c, "jobId");
      const r = await forward(c, await readForm(c), "POST", `/v1/jobs/${encodeURIComponent(jobId)}/cancel`);
      if (r.status !== 200) throw new PageError(r.status, apiMessage(r));
      return seeOther(`/console/jobs/${encodeURIComponent(jobId)}?done=cancelled`);
    }),
  );

  app.post(
    "/jobs/:jobId/deliveries/:deliveryId/replay",
    page(async (c) => {
      const jobId = param(c, "jobId");
      const path = `/v1/jobs/${encodeURIComponent(jobId)}/webhook-deliveries/${encodeURIComponent(param(c, "deliveryId"))}/replay`;
      const r = await forward(c, await readForm(c), "POST", path);
      if (r.status !== 202) throw new PageError(r.status, apiMessage(r));
      return seeOther(`/console/jobs/${encodeURIComponent(jobId)}?done=replayed`);
    }),
  );

  const submitPage = async (
    c: Ctx,
    shell: Shell,
    form: SubmitForm,
    error?: { message: string; for: "transcription" | "raw"; status: number },
  ) => {
    const [connections, policy] = await Promise.all([
      callApi<Connection[]>(c, api, "GET", "/v1/storage-connections"),
      callApi<{ supportedSourceLanguages: string[] }>(c, api, "GET", "/v1/jobs/policy?serviceType=transcription"),
    ]);
    const html = SubmitPage({
      shell,
      connections: connections.data ?? [],
      languages: policy.data?.supportedSourceLanguages ?? ["en"],
      form,
      ...(error ? { error: error.message, errorFor: error.for } : {}),
    });
    return c.html(html, (error?.status ?? 200) as ContentfulStatusCode);
  };

  app.get(
    "/submit",
    page((c, shell) => submitPage(c, shell, {})),
  );

  const submitted = async (c: Ctx, shell: Shell, form: Form, body: unknown, kept: SubmitForm, which: "transcription" | "raw") => {
    const r = await forward(c, form, "POST", "/v1/jobs", body);
    const job = r.data as Job | null;
    if (r.status === 201 || (r.status === 200 && job)) return seeOther(`/console/jobs/${job?.jobId ?? ""}`);
    return submitPage(c, shell, kept, { message: apiMessage(r), for: which, status: r.status });
  };

  app.post(
    "/submit",
    page(async (c, shell) => {
      const form = await readForm(c);
      const kept: SubmitForm = {
        connectionId: form["connectionId"] ?? "",
        bucket: (form["bucket"] ?? "").trim(),
        sourceKey: (form["sourceKey"] ?? "").trim(),
        language: form["language"] ?? "",
      };
      const body = {
        serviceType: "transcription",
        input: {
          sourceType: "s3_direct",
          connectionId: kept.connectionId,
          bucket: kept.bucket,
          sourceKey: kept.sourceKey,
          ...(kept.language ? { options: { language: kept.language } } : {}),
        },
      };
      return submitted(c, shell, form, body, kept, "transcription");
    }),
  );

  app.post(
    "/submit/json",
    page(async (c, shell) => {
      const form = await readForm(c);
      const raw = form["body"] ?? "";
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch (err) {
        return submitPage(c, shell, { raw }, { message: `The body is not JSON: ${(err as Error).message}`, for: "raw", status: 422 });
      }
      return submitted(c, shell, form, body, { raw }, "raw");
    }),
  );

  /** The transcript page as it is now; with `refused`, the message of an edit the API refused, under that status. */
  const transcriptPage = async (c: Ctx, shell: Shell, refused?: { message: string; status: number }) => {
    const id = encodeURIComponent(param(c, "transcriptionId"));
    const [t, glossary, translations, dubbings] = await Promise.all([
      mustGet<Transcript>(c, api, `/v1/transcriptions/${id}`),
      callApi<GlossaryTerm[]>(c, api, "GET", "/v1/glossary"),
      callApi<{ translations: TranslationEntry[] }>(c, api, "GET", `/v1/transcriptions/${id}/translations`),
      callApi<DubbingEntry[]>(c, api, "GET", `/v1/transcriptions/${id}/dubbings`),
    ]);
    const versions = { translations: translations.data?.translations ?? [], dubbings: dubbings.data ?? [] };
    const flash = refused ? { error: refused.message } : { notice: done(c) };
    const html = TranscriptPage({ shell, transcript: t.data, glossary: glossary.data ?? [], versions, ...flash });
    return c.html(html, (refused?.status ?? 200) as ContentfulStatusCode);
  };

  app.get(
    "/transcripts/:transcriptionId",
    page((c, shell) => transcriptPage(c, shell)),
  );

  /**
   * A speaker form (rename, merge, move a segment): sent to the API's speakers or segments route, which
   * does the edit, checks the revision the page was rendered at, the CSRF token and the project. Done:
   * back to the page with its notice. Refused for the transcript's state (a stale revision, a bad name
   * or label): the page as it is now, with the reason. Anything else (CSRF, not found): the error page.
   */
  const speakerEdit = (done: string, request: (form: Form, c: Ctx) => { path: "speakers" | "segments"; body: unknown }) =>
    page(async (c, shell) => {
      const form = await readForm(c);
      const id = encodeURIComponent(param(c, "transcriptionId"));
      const { path, body } = request(form, c);
      const r = await forward(c, form, "PATCH", `/v1/transcriptions/${id}/${path}`, body);
      if (r.status === 200) return seeOther(`/console/transcripts/${id}?done=${done}`);
      if (r.status === 409 || r.status === 422) return transcriptPage(c, shell, { message: refusal(r), status: r.status });
      throw new PageError(r.status, apiMessage(r));
    });

  app.post(
    "/transcripts/:transcriptionId/speakers/rename",
    speakerEdit("speakerRenamed", (form) => {
      const name = (form["name"] ?? "").trim();
      return {
        path: "speakers",
        body: { revision: formInt(form["revision"]), names: { [form["label"] ?? ""]: name === "" ? null : name } },
      };
    }),
  );

  app.post(
    "/transcripts/:transcriptionId/speakers/merge",
    speakerEdit("speakersMerged", (form) => ({
      path: "speakers",
      body: { revision: formInt(form["revision"]), merge: [{ from: form["from"] ?? "", into: form["into"] ?? "" }] },
    })),
  );

  app.post(
    "/transcripts/:transcriptionId/segments/:segmentId/speaker",
    speakerEdit("segmentMoved", (form, c) => ({
      path: "segments",
      body: { revision: formInt(form["revision"]), segments: [{ id: formInt(param(c, "segmentId")), speaker: form["speaker"] ?? "" }] },
    })),
  );

  app.get(
    "/summaries/:summarizationId",
    page(async (c, shell) => {
      const path = `/v1/summarizations/${encodeURIComponent(param(c, "summarizationId"))}`;
      return c.html(SummaryPage({ shell, summary: (await mustGet<Summary>(c, api, path)).data }));
    }),
  );

  // The project glossary, edited from a transcript page and back to it.
  app.post(
    "/transcripts/:transcriptionId/glossary",
    page(async (c) => {
      const form = await readForm(c);
      const r = await forward(c, form, "POST", "/v1/glossary", { term: form["term"] ?? "", preferred: form["preferred"] ?? "" });
      if (r.status !== 201) throw new PageError(r.status, apiMessage(r));
      return seeOther(`/console/transcripts/${encodeURIComponent(param(c, "transcriptionId"))}?done=glossaryAdded`);
    }),
  );

  app.post(
    "/transcripts/:transcriptionId/glossary/:termId/delete",
    page(async (c) => {
      const r = await forward(c, await readForm(c), "DELETE", `/v1/glossary/${encodeURIComponent(param(c, "termId"))}`);
      if (r.status !== 200) throw new PageError(r.status, apiMessage(r));
      return seeOther(`/console/transcripts/${encodeURIComponent(param(c, "transcriptionId"))}?done=glossaryRemoved`);
    }),
  );

  app.get(
    "/transcripts/:transcriptionId/translations/:languageKey",
    page(async (c, shell) => {
      const path = `/v1/transcriptions/${encodeURIComponent(param(c, "transcriptionId"))}/translations/${encodeURIComponent(param(c, "languageKey"))}`;
      return c.html(TranslationPage({ shell, translation: (await mustGet<Translation>(c, api, path)).data }));
    }),
  );

  app.get(
    "/dubbings/:dubbingId",
    page(async (c, shell) => {
      const dubbing = (await mustGet<Dubbing>(c, api, `/v1/dubbings/${encodeURIComponent(param(c, "dubbingId"))}`)).data;
      return c.html(DubbingPage({ shell, dubbing }));
    }),
  );

  app.get(
    "/clips/:clipGenerationId",
    page(async (c, shell) => {
      const gen = (await mustGet<ClipGeneration>(c, api, `/v1/clip-generations/${encodeURIComponent(param(c, "clipGenerationId"))}`)).data;
      return c.html(ClipsPage({ shell, gen }));
    }),
  );

  /**
   * Media the pages play, streamed from the customer's bucket with the browser's Range passed on. Each
   * route names a record, never a key: the API reads the record (so the session's permissions and
   * project apply) and says which object it is.
   */
  const media =
    (kind: MediaKind, locate: (c: Ctx) => Promise<{ connectionId: string; bucket: string; key: string } | null>) => async (c: Ctx) => {
      const session = await loadSession(c, api);
      if (!session?.project) return c.text("sign in to play media", 401);
      const ref = await locate(c).catch((err: unknown) => {
        if (err instanceof PageError) return null;
        throw err;
      });
      const res = ref
        ? await streamObject(c.env, getDb(c.env.DB), session.project.projectId, { ...ref, kind }, c.req.header("range"))
        : null;
      return res ?? c.text("not found", 404);
    };
  // The bucket a transcript's files (and the clips and dubs made from it) are in; null for a presigned
  // source, whose files are only behind the customer's URLs.
  const transcriptSource = async (c: Ctx, id: string) =>
    (await mustGet<Transcript>(c, api, `/v1/transcriptions/${encodeURIComponent(id)}`)).data.source;

  app.get(
    "/media/transcripts/:transcriptionId",
    media("audio-video", async (c) => {
      const source = await transcriptSource(c, param(c, "transcriptionId"));
      return source && { connectionId: source.connectionId, bucket: source.bucket, key: source.sourceKey };
    }),
  );

  app.get(
    "/media/thumbnails/:transcriptionId/:thumbnailId",
    media("image", async (c) => {
      const t = (await mustGet<Transcript>(c, api, `/v1/transcriptions/${encodeURIComponent(param(c, "transcriptionId"))}`)).data;
      const th = (t.thumbnails ?? []).find((x) => x.thumbnailId === param(c, "thumbnailId"));
      return th && t.source ? { connectionId: t.source.connectionId, bucket: th.bucket, key: th.key } : null;
    }),
  );

  app.get(
    "/media/dubbings/:dubbingId/video",
    media("audio-video", async (c) => {
      const d = (await mustGet<Dubbing>(c, api, `/v1/dubbings/${encodeURIComponent(param(c, "dubbingId"))}`)).data;
      const key = d.artifacts?.["video"];
      if (!key) return null;
      // Dubbed media is written to the bucket of the transcript's source.
      const source = await transcriptSource(c, d.transcriptionId);
      return source && { connectionId: source.connectionId, bucket: source.bucket, key };
    }),
  );

  const clipPart = (kind: MediaKind) =>
    media(kind, async (c) => {
      const gen = (await mustGet<ClipGeneration>(c, api, `/v1/clip-generations/${encodeURIComponent(param(c, "clipGenerationId"))}`)).data;
      const clip = (gen.clips ?? []).find((x) => String(x.index) === param(c, "index"));
      if (!clip) return null;
      // A clip is written to the bucket of the transcript it was cut from.
      const source = await transcriptSource(c, gen.textSourceId);
      return source && { connectionId: source.connectionId, bucket: source.bucket, key: kind === "image" ? clip.posterKey : clip.videoKey };
    });
  app.get("/media/clips/:clipGenerationId/:index/video", clipPart("audio-video"));
  app.get("/media/clips/:clipGenerationId/:index/poster", clipPart("image"));

  app.get(
    "/catalog",
    page(async (c, shell) => {
      const query = (c.req.query("q") ?? "").trim();
      if (!query) return c.html(CatalogPage({ shell, query, hits: null, warnings: [] }));
      // A search costs embedding and rerank work: a link from another site (or a browser that does not say
      // where a navigation came from) gets the query in the box and runs it only when the user presses Search.
      const site = c.req.header("sec-fetch-site");
      if (site !== "same-origin" && site !== "none") {
        return c.html(CatalogPage({ shell, query, hits: null, warnings: [], notice: "Press Search to run this search." }));
      }
      // A search changes nothing, but it is a POST: the API's CSRF check wants the session's token.
      const r = await callApi<{ results: SearchHit[] }>(c, api, "POST", "/v1/catalog/search", {
        body: { query, limit: 20 },
        csrf: shell.session.csrfToken,
        fromPage: true,
      });
      const warnings = (r.metadata["warnings"] as string[] | undefined) ?? [];
      return c.html(CatalogPage({ shell, query, hits: r.data?.results ?? null, warnings, error: r.error ? apiMessage(r) : undefined }));
    }),
  );

  const keysPage = async (
    c: Ctx,
    shell: Shell,
    extra: { created?: { name: string; secret: string }; notice?: string; error?: string } = {},
  ) => {
    const projectId = shell.session.project?.projectId;
    const keys = projectId ? await listProjectKeys(getDb(c.env.DB), projectId) : [];
    return c.html(
      KeysPage({ shell, keys, notice: extra.notice ?? done(c), error: extra.error, created: extra.created }),
      extra.created ? 201 : 200,
    );
  };

  const requireAdminProject = (shell: Shell): { workspaceId: string; projectId: string } => {
    if (shell.session.user.role !== "admin") throw new PageError(403, "only a workspace admin can create or revoke keys");
    if (!shell.session.project) throw new PageError(404, "the session has no project");
    return { workspaceId: shell.session.workspace.workspaceId, projectId: shell.session.project.projectId };
  };

  app.get(
    "/keys",
    page((c, shell) => keysPage(c, shell)),
  );

  app.post(
    "/keys",
    page(async (c, shell) => {
      const form = await readForm(c);
      checkConsoleCsrf(c, shell, form);
      const { workspaceId, projectId } = requireAdminProject(shell);
      const name = (form["name"] ?? "").trim();
      if (name.length < 1 || name.length > 120) return keysPage(c, shell, { error: "A key name is 1–120 characters." });
      const key = await createKey(getDb(c.env.DB), { kind: "project", workspaceId, projectId, name });
      return keysPage(c, shell, { created: { name: key.name, secret: key.secret } });
    }),
  );

  app.post(
    "/keys/:keyId/revoke",
    page(async (c, shell) => {
      checkConsoleCsrf(c, shell, await readForm(c));
      const { projectId } = requireAdminProject(shell);
      const keyId = param(c, "keyId");
      if (!(await revokeProjectKey(getDb(c.env.DB), projectId, keyId))) throw new PageError(404, `API key not found: ${keyId}`);
      return seeOther("/console/keys?done=revoked");
    }),
  );

  const projectRow = async (c: Ctx, shell: Shell) => {
    const projectId = shell.session.project?.projectId;
    if (!projectId) throw new PageError(404, "the session has no project");
    const row = await getDb(c.env.DB)
      .select()
      .from(projects)
      .where(and(eq(projects.id, projectId), eq(projects.workspaceId, shell.session.workspace.workspaceId)))
      .get();
    if (!row) throw new PageError(404, `project not found: ${projectId}`);
    return row;
  };

  const dataPage = async (c: Ctx, shell: Shell, extra: { error?: string; status?: ContentfulStatusCode } = {}) => {
    const row = await projectRow(c, shell);
    const audit =
      shell.session.user.role === "admin"
        ? (await listAuditEvents(getDb(c.env.DB), shell.session.workspace.workspaceId, { limit: 50 })).map(publicAuditEvent)
        : [];
    return c.html(
      DataPage({ shell, policy: effectiveDataPolicy(row.dataPolicy), audit, notice: done(c), error: extra.error }),
      extra.status ?? 200,
    );
  };

  const requireAdmin = (shell: Shell, what: string) => {
    if (shell.session.user.role !== "admin") throw new PageError(403, `only a workspace admin can ${what}`);
  };
  const consoleActor = (shell: Shell) => ({ kind: "console" as const, id: shell.session.user.userId, label: shell.session.user.email });

  app.get(
    "/data",
    page((c, shell) => dataPage(c, shell)),
  );

  app.post(
    "/data/policy",
    page(async (c, shell) => {
      const form = await readForm(c);
      checkConsoleCsrf(c, shell, form);
      requireAdmin(shell, "change the data policy");
      const row = await projectRow(c, shell);
      const daysOf = (v: string | undefined) => (v === undefined || v.trim() === "" ? null : Number(v));
      const parsed = DataPolicyPatchSchema.safeParse({
        retentionDays: daysOf(form["retentionDays"]),
        jobRetentionDays: daysOf(form["jobRetentionDays"]),
        redaction: form["redaction"],
        keepUnredacted: form["keepUnredacted"] === "true",
        voiceCloning: { requireConsent: form["requireConsent"] === "true" },
      });
      if (!parsed.success)
        return dataPage(c, shell, { error: "Retention is 1–3650 days, or empty to keep; pick a redaction mode.", status: 422 });
      await getDb(c.env.DB)
        .update(projects)
        .set({ dataPolicy: patchedDataPolicy(row.dataPolicy, parsed.data) })
        .where(eq(projects.id, row.id));
      return seeOther("/console/data?done=policySaved");
    }),
  );

  app.post(
    "/data/delete-project",
    page(async (c, shell) => {
      const form = await readForm(c);
      checkConsoleCsrf(c, shell, form);
      requireAdmin(shell, "delete a project");
      const row = await projectRow(c, shell);
      if ((form["confirmName"] ?? "").trim() !== row.name)
        return dataPage(c, shell, { error: "The name typed is not the project's: nothing was deleted.", status: 422 });
      const audit = await startProjectDeletion(c.env, consoleActor(shell), row.workspaceId, row.id, {
        deleteOutputs: form["deleteOutputs"] === "true",
      });
      c.executionCtx.waitUntil(runProjectDeletionNow(c.env, audit.id).catch(() => undefined));
      // The project's console sessions, this one too, were revoked with its keys: sign in again to another project.
      return seeOther("/console/sign-in?done=projectDeleted");
    }),
  );

  app.post(
    "/transcripts/:transcriptionId/delete",
    page(async (c) => {
      const form = await readForm(c);
      const id = encodeURIComponent(param(c, "transcriptionId"));
      const query = form["deleteOutputs"] === "true" ? "?deleteOutputs=true" : "";
      const r = await forward(c, form, "DELETE", `/v1/transcriptions/${id}${query}`);
      if (r.status !== 200) throw new PageError(r.status, apiMessage(r));
      return seeOther("/console/jobs?done=transcriptDeleted");
    }),
  );

  const connectionsPage = async (
    c: Ctx,
    shell: Shell,
    extra: { test?: ConnectionTest; eventSecret?: EventSecretReveal; error?: string; status?: number } = {},
  ) => {
    const [list, presets] = await Promise.all([
      callApi<Connection[]>(c, api, "GET", "/v1/storage-connections"),
      callApi<PresetChoice[]>(c, api, "GET", "/v1/presets"),
    ]);
    const html = ConnectionsPage({
      shell,
      connections: list.data ?? [],
      presets: presets.data ? presets.data.map((p) => ({ presetId: p.presetId, name: p.name })) : null,
      test: extra.test,
      eventSecret: extra.eventSecret,
      notice: done(c),
      error: extra.error ?? (list.error ? apiMessage(list) : undefined),
    });
    return c.html(html, (extra.status ?? 200) as ContentfulStatusCode);
  };

  app.get(
    "/connections",
    page((c, shell) => connectionsPage(c, shell)),
  );

  app.post(
    "/connections",
    page(async (c, shell) => {
      const form = await readForm(c);
      const body = {
        name: (form["name"] ?? "").trim(),
        endpoint: (form["endpoint"] ?? "").trim(),
        ...(form["region"]?.trim() ? { region: form["region"].trim() } : {}),
        buckets: (form["buckets"] ?? "")
          .split(",")
          .map((b) => b.trim())
          .filter(Boolean),
        accessKeyId: (form["accessKeyId"] ?? "").trim(),
        secretAccessKey: form["secretAccessKey"] ?? "",
      };
      const r = await forward(c, form, "POST", "/v1/storage-connections", body);
      if (r.status === 201) return seeOther("/console/connections?done=connectionCreated");
      return connectionsPage(c, shell, { error: apiMessage(r), status: r.status });
    }),
  );

  app.post(
    "/connections/:connectionId/deactivate",
    page(async (c) => {
      const id = encodeURIComponent(param(c, "connectionId"));
      const r = await forward(c, await readForm(c), "POST", `/v1/storage-connections/${id}/deactivate`);
      if (r.status !== 200) throw new PageError(r.status, apiMessage(r));
      return seeOther("/console/connections?done=deactivated");
    }),
  );

  app.post(
    "/connections/:connectionId/test",
    page(async (c, shell) => {
      checkConsoleCsrf(c, shell, await readForm(c));
      const projectId = shell.session.project?.projectId ?? "";
      const test = await testConnection(c.env, getDb(c.env.DB), projectId, param(c, "connectionId"));
      if (!test) throw new PageError(404, `storage connection not found: ${param(c, "connectionId")}`);
      return connectionsPage(c, shell, { test });
    }),
  );

  /** A trigger as PUT …/triggers takes it back: the stored fields, nothing the API adds. */
  const triggerBody = (t: StoredTrigger) => ({
    bucket: t.bucket,
    prefix: t.prefix,
    ...(t.suffixes ? { suffixes: t.suffixes } : {}),
    presetId: t.presetId,
    enabled: t.enabled,
  });

  /**
   * Sets a connection's whole trigger list (the API takes it whole) to `change(current)`. The first list
   * set answers the connection's event secret, once: that page shows it; otherwise back to the page.
   */
  const putTriggers = async (c: Ctx, shell: Shell, form: Form, change: (current: StoredTrigger[]) => unknown[]) => {
    const id = encodeURIComponent(param(c, "connectionId"));
    const current = (await mustGet<Connection>(c, api, `/v1/storage-connections/${id}`)).data;
    const r = await forward<Connection & { eventSecret?: string }>(c, form, "PUT", `/v1/storage-connections/${id}/triggers`, {
      triggers: change(current.triggers),
    });
    if (r.status !== 200 || !r.data) return connectionsPage(c, shell, { error: apiMessage(r), status: r.status });
    if (!r.data.eventSecret) return seeOther("/console/connections?done=triggersSaved");
    return connectionsPage(c, shell, { eventSecret: secretReveal(c, r.data.name, r.data.eventsPath, r.data.eventSecret) });
  };

  const secretReveal = (c: Ctx, connectionName: string, eventsPath: string, secret: string): EventSecretReveal => ({
    connectionName,
    secret,
    eventsUrl: new URL(eventsPath, c.req.url).href,
  });

  app.post(
    "/connections/:connectionId/triggers",
    page(async (c, shell) => {
      const form = await readForm(c);
      const suffixes = (form["suffixes"] ?? "")
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      const added = {
        bucket: form["bucket"] ?? "",
        prefix: form["prefix"] ?? "",
        ...(suffixes.length ? { suffixes } : {}),
        presetId: form["presetId"] ?? "",
      };
      return putTriggers(c, shell, form, (current) => [...current.map(triggerBody), added]);
    }),
  );

  // A trigger is named by what it watches, not by its place in the list, so a list changed since the page was drawn loses the right one.
  app.post(
    "/connections/:connectionId/triggers/remove",
    page(async (c, shell) => {
      const form = await readForm(c);
      const same = (t: StoredTrigger) => t.bucket === form["bucket"] && t.prefix === form["prefix"] && t.presetId === form["presetId"];
      return putTriggers(c, shell, form, (current) => current.filter((t) => !same(t)).map(triggerBody));
    }),
  );

  app.post(
    "/connections/:connectionId/event-secret",
    page(async (c, shell) => {
      const id = encodeURIComponent(param(c, "connectionId"));
      const r = await forward<Connection & { eventSecret: string }>(
        c,
        await readForm(c),
        "POST",
        `/v1/storage-connections/${id}/event-secret`,
      );
      if (r.status !== 200 || !r.data) throw new PageError(r.status, apiMessage(r));
      return connectionsPage(c, shell, { eventSecret: secretReveal(c, r.data.name, r.data.eventsPath, r.data.eventSecret) });
    }),
  );

  /** The project's presets by id, for naming a workflow's preset; empty when the session may not read them. */
  const presetNames = async (c: Ctx) =>
    new Map(((await callApi<Preset[]>(c, api, "GET", "/v1/presets")).data ?? []).map((p) => [p.presetId, p.name]));

  app.get(
    "/workflows",
    page(async (c, shell) => {
      const query = readWorkflowListQuery(new URL(c.req.url));
      const [r, names] = await Promise.all([
        callApi<Workflow[]>(c, api, "GET", `/v1/workflows?${workflowListSearch(query)}`),
        presetNames(c),
      ]);
      const pagination = (r.metadata["pagination"] as Pagination | undefined) ?? null;
      const html = WorkflowsPage({
        shell,
        query,
        workflows: r.data ?? [],
        pagination,
        presetNames: names,
        error: r.error ? apiMessage(r) : undefined,
      });
      return c.html(html, (r.status === 403 ? 403 : 200) as ContentfulStatusCode);
    }),
  );

  app.get(
    "/workflows/:workflowId",
    page(async (c, shell) => {
      const [w, names] = await Promise.all([
        mustGet<Workflow>(c, api, `/v1/workflows/${encodeURIComponent(param(c, "workflowId"))}`),
        presetNames(c),
      ]);
      return c.html(WorkflowPage({ shell, workflow: w.data, presetNames: names, notice: done(c) }));
    }),
  );

  app.post(
    "/workflows/:workflowId/cancel",
    page(async (c) => {
      const id = encodeURIComponent(param(c, "workflowId"));
      const r = await forward(c, await readForm(c), "POST", `/v1/workflows/${id}/cancel`);
      if (r.status !== 200) throw new PageError(r.status, apiMessage(r));
      return seeOther(`/console/workflows/${id}?done=workflowCancelled`);
    }),
  );

  const presetsPage = async (c: Ctx, shell: Shell, extra: { form?: PresetForm; notice?: string; error?: string; status?: number } = {}) => {
    const [presets, connections] = await Promise.all([
      callApi<Preset[]>(c, api, "GET", "/v1/presets"),
      callApi<Connection[]>(c, api, "GET", "/v1/storage-connections"),
    ]);
    const html = PresetsPage({
      shell,
      presets: presets.data ?? [],
      connections: connections.data ?? [],
      form: extra.form ?? {},
      notice: extra.notice ?? done(c),
      error: extra.error ?? (presets.error ? apiMessage(presets) : undefined),
    });
    return c.html(html, (extra.status ?? (presets.status === 403 ? 403 : 200)) as ContentfulStatusCode);
  };

  app.get(
    "/presets",
    page((c, shell) => presetsPage(c, shell)),
  );

  app.post(
    "/presets",
    page(async (c, shell) => {
      const form = await readForm(c);
      const kept: PresetForm = { name: form["name"] ?? "", description: form["description"] ?? "", steps: form["steps"] ?? "" };
      let steps: unknown;
      try {
        steps = JSON.parse(kept.steps ?? "");
      } catch (err) {
        return presetsPage(c, shell, { form: kept, error: `The steps are not JSON: ${(err as Error).message}`, status: 422 });
      }
      const description = kept.description?.trim();
      const body = { name: (kept.name ?? "").trim(), ...(description ? { description } : {}), steps };
      const r = await forward(c, form, "POST", "/v1/presets", body);
      if (r.status === 201) return seeOther("/console/presets?done=presetCreated");
      return presetsPage(c, shell, { form: kept, error: `Not created: ${apiMessage(r)}`, status: r.status });
    }),
  );

  app.post(
    "/presets/:presetId/delete",
    page(async (c, shell) => {
      const r = await forward(c, await readForm(c), "DELETE", `/v1/presets/${encodeURIComponent(param(c, "presetId"))}`);
      if (r.status === 200) return seeOther("/console/presets?done=presetDeleted");
      // In use by a trigger: a state to change first, said on the page rather than as a failure.
      if (r.status === 409) return presetsPage(c, shell, { notice: `Not deleted: ${apiMessage(r)}`, status: 409 });
      throw new PageError(r.status, apiMessage(r));
    }),
  );

  app.post(
    "/presets/:presetId/run",
    page(async (c, shell) => {
      const form = await readForm(c);
      const prefix = variableField("");
      const variables = Object.fromEntries(
        Object.entries(form)
          .filter(([k]) => k.startsWith(prefix))
          .map(([k, v]) => [k.slice(prefix.length), v]),
      );
      const r = await forward<Workflow>(c, form, "POST", "/v1/workflows", { presetId: param(c, "presetId"), variables });
      if (r.status === 201 && r.data) return seeOther(`/console/workflows/${encodeURIComponent(r.data.workflowId)}`);
      return presetsPage(c, shell, { error: `Not started: ${apiMessage(r)}`, status: r.status });
    }),
  );

  app.get(
    "/account",
    page(async (c, shell) => c.html(AccountPage({ shell }))),
  );

  app.post(
    "/account/password",
    page(async (c, shell) => {
      const form = await readForm(c);
      const r = await forward<{ otherSessionsEnded: number }>(c, form, "POST", "/v1/console/password", {
        currentPassword: form["currentPassword"] ?? "",
        newPassword: form["newPassword"] ?? "",
      });
      if (r.status !== 200) return c.html(AccountPage({ shell, error: apiMessage(r) }), r.status as ContentfulStatusCode);
      const ended = r.data?.otherSessionsEnded ?? 0;
      const notice = `Password changed. ${ended === 1 ? "1 other session" : `${ended} other sessions`} ended.`;
      return c.html(AccountPage({ shell, notice }));
    }),
  );

  app.get(
    "/usage",
    page(async (c, shell) => {
      const ws = await mustGet<WorkspaceView>(c, api, "/v1/workspace");
      return c.html(UsagePage({ shell, workspace: ws.data }));
    }),
  );

  return app;
}
