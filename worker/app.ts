import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { secureHeaders } from "hono/secure-headers";
import { authenticate } from "./auth/middleware";
import type { AppBindings } from "./env";
import { ApiError, errorBody, renderError } from "./errors";
import { routes } from "./routes/index";

/** Bodies above this are refused with 413 before they are read (runner results carry transcripts). */
export const MAX_BODY_BYTES = 1024 * 1024;
export const MAX_RUNNER_BODY_BYTES = 32 * 1024 * 1024;

const tooLarge = (limit: number) => () => {
  throw new ApiError("payloadTooLarge", `request body exceeds ${limit} bytes`);
};

export function buildApp() {
  const app = new Hono<AppBindings>();
  // Ceiling for bench/api.ts: the cheapest possible route on the same workerd, registered before
  // every middleware so the benchmark can put the API's figures beside it. Local stacks only.
  app.get("/__bench/bare", (c) => (c.env.ENVIRONMENT === "local" ? c.text("ok") : c.json(errorBody("notFound", "no route for GET /__bench/bare"), 404)));
  app.use(secureHeaders());
  app.use("/runner/*", bodyLimit({ maxSize: MAX_RUNNER_BODY_BYTES, onError: tooLarge(MAX_RUNNER_BODY_BYTES) }));
  app.use("/v1/*", bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge(MAX_BODY_BYTES) }));
  app.use("/admin/*", bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge(MAX_BODY_BYTES) }));

  app.get("/", (c) => c.json({ data: { service: "media-jobs", version: "v1", docs: "/docs/api.md" }, metadata: {} }));
  app.get("/healthz", (c) => c.json({ data: { ok: true }, metadata: {} }));

  // The policy endpoint is the one public route: mounted before authentication.
  app.route("/v1/jobs/policy", routes.policy);
  app.route("/admin/v1", routes.admin);
  app.route("/runner/v1", routes.runner);

  app.use("/v1/*", authenticate);
  app.route("/v1/jobs", routes.jobs);
  app.route("/v1/workspace", routes.workspace);
  app.route("/v1/projects", routes.projects);
  app.route("/v1/console", routes.console);
  app.route("/v1/storage-connections", routes.storageConnections);
  app.route("/v1/transcriptions", routes.transcripts);
  app.route("/v1/thumbnails", routes.thumbnails);
  app.route("/v1/glossary", routes.glossary);

  app.notFound((c) => c.json(errorBody("notFound", `no route for ${c.req.method} ${new URL(c.req.url).pathname}`), 404));
  app.onError(renderError);
  return app;
}
