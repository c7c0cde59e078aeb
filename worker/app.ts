import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import { guard } from "./auth/guard";
import { consoleBodyLimit, consolePageHeaders } from "./console/page-headers";
import { consolePages } from "./console/routes";
import { countD1Queries } from "./db/query-count";
import type { AppBindings } from "./env";
import { ApiError, errorBody, renderError } from "./errors";
import { OPENAI_FILE_MAX_BYTES, OPENAI_FORM_OVERHEAD_BYTES, OPENAI_UPLOAD_PATH } from "../contracts/openai-transcription-request";
import { d1Session } from "./http/d1-session";
import { serverTiming } from "./http/server-timing";
import { openApiRoutes } from "./openapi/routes";
import { routes } from "./routes/index";
import { SERVICE_ROUTES } from "./services/index";

/** Bodies above this are refused with 413 before they are read (runner results carry transcripts). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_RUNNER_BODY_BYTES = 32 * 1024 * 1024;
/** The OpenAI-compatible upload: OpenAI's file limit plus the form around it (contracts/openai-transcription-request.ts). */
export const MAX_OPENAI_UPLOAD_BODY_BYTES = OPENAI_FILE_MAX_BYTES + OPENAI_FORM_OVERHEAD_BYTES;

const tooLarge = (limit: number) => () => {
  throw new ApiError("payloadTooLarge", `request body exceeds ${limit} bytes`);
};

/** A Hono route path (`/v1/jobs/:jobId/cancel`) as a regex over request paths. */
function routePattern(path: string): RegExp {
  const body = path
    .replace(/\/+$/, "")
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${body}/?$`);
}

/**
 * Methods the app serves on a path. Hono answers a known path with the wrong method through
 * notFound; this lets that answer be 405 with an `Allow` header instead of 404.
 */
function allowedMethods(app: Hono<AppBindings>): (pathname: string) => string[] {
  let table: Array<{ method: string; pattern: RegExp }> | null = null;
  return (pathname) => {
    table ??= app.routes.filter((r) => r.method !== "ALL").map((r) => ({ method: r.method, pattern: routePattern(r.path) }));
    const methods = new Set(table.filter((r) => r.pattern.test(pathname)).map((r) => r.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  };
}

export function buildApp() {
  const app = new Hono<AppBindings>();
  // Ceiling for bench/api.ts: the cheapest possible route on the same workerd, registered before
  // every middleware so the benchmark can put the API's figures beside it. Local stacks only.
  app.get("/__bench/bare", (c) =>
    c.env.ENVIRONMENT === "local" ? c.text("ok") : c.json(errorBody("notFound", "no route for GET /__bench/bare"), 404),
  );
  // Local benches only (COUNT_D1_QUERIES): the D1 statements each request makes, as response headers.
  app.use(countD1Queries);
  // Every request's D1 queries in one session, its bookmark answered (reads near the reader, read-your-writes).
  app.use(d1Session);
  app.use(secureHeaders());
  app.use("/runner/*", bodyLimit({ maxSize: MAX_RUNNER_BODY_BYTES, onError: tooLarge(MAX_RUNNER_BODY_BYTES) }));
  // One body bound per path: the upload route's own (counted as it arrives, refused past it: never read whole), the API's elsewhere.
  const apiBodyLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge(MAX_BODY_BYTES) });
  const uploadBodyLimit = bodyLimit({ maxSize: MAX_OPENAI_UPLOAD_BODY_BYTES, onError: tooLarge(MAX_OPENAI_UPLOAD_BODY_BYTES) });
  app.use("/v1/*", (c, next) => (c.req.path === OPENAI_UPLOAD_PATH ? uploadBodyLimit(c, next) : apiBodyLimit(c, next)));
  app.use("/admin/*", bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge(MAX_BODY_BYTES) }));
  // The console: its page policy and no-store on every answer (a 413 included), then its body bounds:
  // 64 KiB for a form, the API's own limit for the raw-JSON job form.
  app.use("/console/*", consolePageHeaders);
  app.use("/console/*", consoleBodyLimit("/console/submit/json", MAX_BODY_BYTES));

  app.get("/", (c) =>
    c.json({
      data: { service: "media-jobs", version: "v1", docs: "/docs/api.md", reference: "/docs/reference", openapi: "/v1/openapi.json" },
      metadata: {},
    }),
  );
  app.get("/healthz", (c) => c.json({ data: { ok: true }, metadata: {} }));

  // Before the guard, so the create's phases include authentication.
  app.on("POST", "/v1/jobs", serverTiming);
  app.on("POST", "/v1/catalog/search", serverTiming);
  app.on("POST", OPENAI_UPLOAD_PATH, serverTiming);
  // Every /v1 route's key kind and permission, from the one access table (worker/auth/route-access.ts);
  // public routes (the policy, the API's own description, console sign-in and invitation acceptance)
  // are marked so there.
  app.use("/v1/*", guard);
  app.route("/v1/jobs/policy", routes.policy);
  app.route("/", openApiRoutes);
  app.route("/v1/console", routes.consolePublic);
  app.route("/admin/v1", routes.admin);
  app.route("/runner/v1", routes.runner);
  // The web console: pages that check the cookie session themselves and call this app's API in process.
  app.route(
    "/console",
    consolePages((request, env, ctx) => app.fetch(request, env, ctx)),
  );

  app.route("/v1/jobs", routes.jobs);
  app.route("/v1/workspace", routes.workspace);
  app.route("/v1/projects", routes.projects);
  app.route("/v1/console", routes.console);
  app.route("/v1/console", routes.consoleUser);
  app.route("/v1/storage-connections", routes.storageConnections);
  app.route("/v1/storage-connections", routes.storageTriggers);
  app.route("/v1/workflows", routes.workflows);
  app.route("/v1/presets", routes.presets);
  app.route("/v1/voices", routes.voiceCreate);
  app.route("/v1", routes.deletion);
  app.route("/v1/transcriptions", routes.regenerate);
  app.route("/v1/voice-consents", routes.voiceConsentCreate);
  app.route(OPENAI_UPLOAD_PATH, routes.openAiTranscriptions);
  for (const [path, sub] of SERVICE_ROUTES) app.route(`/v1${path}`, sub);

  const allowed = allowedMethods(app);
  app.notFound((c) => {
    const { pathname } = new URL(c.req.url);
    const methods = allowed(pathname);
    if (methods.length > 0) {
      c.header("Allow", methods.join(", "));
      return c.json(
        errorBody("methodNotAllowed", `${c.req.method} is not allowed on ${pathname}; allowed: ${methods.join(", ")}`, [
          { path: "method", issue: "methodNotAllowed" },
        ]),
        405,
      );
    }
    return c.json(errorBody("notFound", `no route for ${c.req.method} ${pathname}`), 404);
  });
  app.onError(renderError);
  return app;
}
