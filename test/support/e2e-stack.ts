import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { apiCall, bootstrap, type BootstrapResult, type ResponseObserver } from "../../scripts/lib/api-client";
import { LOCAL_ADMIN_SECRET, startStack, type Stack, type StackOptions } from "../../scripts/lib/stack";
import { S3Client } from "../../contracts/s3-client";
import type { Job } from "../../contracts/job";
import { speechVideo } from "./media-fixtures";
import { OpenApiValidator, type OpenApiDocumentShape } from "./openapi-validator";

/** A fresh local stack per test file: its own state dir, API port and S3 server. */
export interface E2E {
  stack: Stack;
  tenant: BootstrapResult;
  s3: S3Client;
  api<T>(method: string, p: string, body?: unknown): Promise<T>;
  admin<T>(method: string, p: string, body?: unknown): Promise<T>;
  /**
   * Checks an answer against its operation and status in the stack's served `/v1/openapi.json`
   * (JSON Schema 2020-12); `api()`, `admin()` and the bootstrap pass every answer through it, and a
   * test calling `apiCall` itself can pass it as the observer. Throws with the mismatch's JSON pointer.
   */
  checkResponse: ResponseObserver;
  waitForJob(jobId: string, statuses: Job["status"][], timeoutMs?: number): Promise<Job>;
  /** Polls the job until `done(job)` holds; `what` names the wait in the timeout error. */
  waitForJobWhere(jobId: string, what: string, done: (job: Job) => boolean, timeoutMs?: number): Promise<Job>;
  close(): Promise<void>;
}

// E2E_API_PORT: the first API port this process's stacks take (the next stack the one after), for
// sessions sharing a machine that each keep to a range of their own; else one derived from the pid.
let nextPort = Number(process.env["E2E_API_PORT"]) || 18700 + (process.pid % 500) * 2;

export async function startE2E(
  opts: StackOptions & { plan?: "free" | "pro" | "enterprise"; settings?: Record<string, unknown> } = {},
): Promise<E2E> {
  const stateDir = await mkdtemp(path.join(os.tmpdir(), "media-jobs-e2e-"));
  const stack = await startStack({ apiPort: nextPort++, stateDir, vars: { ALLOW_TEST_PIPELINES: "true", ...(opts.vars ?? {}) }, ...opts });
  const validator = await servedDocument(stack.apiBaseUrl);
  const checkResponse: ResponseObserver = (r) => validator.checkResponse(r);
  const tenant = await bootstrap({
    observe: checkResponse,
    apiBaseUrl: stack.apiBaseUrl,
    adminSecret: LOCAL_ADMIN_SECRET,
    name: "e2e",
    plan: opts.plan ?? "pro",
    bucket: stack.bucket,
    s3: stack.s3,
    ...(opts.settings ? { settings: opts.settings } : {}),
  });
  const api = async <T>(method: string, p: string, body?: unknown) =>
    (await apiCall<T>(stack.apiBaseUrl, method, p, tenant.projectKey, body, {}, checkResponse)).data;
  const admin = async <T>(method: string, p: string, body?: unknown) =>
    (await apiCall<T>(stack.apiBaseUrl, method, `/admin/v1${p}`, LOCAL_ADMIN_SECRET, body, {}, checkResponse)).data;
  const waitForJobWhere: E2E["waitForJobWhere"] = async (jobId, what, done, timeoutMs = 120_000) => {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const job = await api<Job>("GET", `/v1/jobs/${jobId}`);
      if (done(job)) return job;
      if (Date.now() > end)
        throw new Error(
          `job ${jobId} still ${job.status} after ${timeoutMs} ms (wanted ${what}); lastError=${JSON.stringify(job.lastError)}\n${stack.logs().slice(-3000)}`,
        );
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  return {
    stack,
    tenant,
    s3: new S3Client({
      endpoint: stack.s3.endpoint,
      region: stack.s3.region,
      accessKeyId: stack.s3.accessKeyId,
      secretAccessKey: stack.s3.secretAccessKey,
      forcePathStyle: true,
    }),
    api,
    admin,
    checkResponse,
    waitForJob: (jobId, statuses, timeoutMs) =>
      waitForJobWhere(jobId, statuses.join("/"), (job) => statuses.includes(job.status), timeoutMs),
    waitForJobWhere,
    async close() {
      await stack.close();
      await rm(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * The document the stack serves at `/v1/openapi.json`, as a validator: fetched once per process
 * (every stack serves the same document), its schemas compiled once each as answers need them.
 */
let served: Promise<OpenApiValidator> | null = null;
function servedDocument(apiBaseUrl: string): Promise<OpenApiValidator> {
  served ??= (async () => {
    const res = await fetch(`${apiBaseUrl}/v1/openapi.json`, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`GET /v1/openapi.json answered ${res.status}`);
    return new OpenApiValidator((await res.json()) as OpenApiDocumentShape);
  })();
  return served;
}

/** JSON log lines the stack's runners wrote, for the runner with this RUNNER_ID. */
export function runnerLogEvents(e: E2E, runnerId: string): string[] {
  return e.stack
    .logs()
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { event?: string; runnerId?: string };
        return entry.runnerId === runnerId && entry.event ? [entry.event] : [];
      } catch {
        return [];
      }
    });
}

export async function consoleKey(e: E2E): Promise<string> {
  const r = await apiCall<{ secret: string }>(
    e.stack.apiBaseUrl,
    "POST",
    "/v1/console/sessions",
    e.tenant.workspaceKey,
    { projectId: e.tenant.projectId, userHandle: "e2e" },
    {},
    e.checkResponse,
  );
  return r.data.secret;
}

/**
 * The LibriVox speech video uploaded to `e2e/speech.mp4` and transcribed by the stack's real runner
 * (PocketSphinx): the transcript later services work on. Returns its `txt_` id.
 */
export async function transcribedSpeech(e: E2E): Promise<string> {
  return transcribedFile(e, await speechVideo(), "e2e/speech.mp4");
}

/** The local media `file` uploaded to `sourceKey` (an mp4) and transcribed by the stack's real runner; its `txt_` id. */
export async function transcribedFile(e: E2E, file: string, sourceKey: string): Promise<string> {
  await e.s3.putObject(e.tenant.bucket, sourceKey, await readFile(file), "video/mp4");
  const job = await e.api<Job>("POST", "/v1/jobs", {
    serviceType: "transcription",
    input: {
      sourceType: "s3_direct",
      connectionId: e.tenant.connectionId,
      bucket: e.tenant.bucket,
      sourceKey,
      options: { language: "en" },
    },
  });
  const done = await e.waitForJob(job.jobId, ["completed", "failed"], 180_000);
  if (done.status !== "completed") throw new Error(`transcription ${job.jobId} ${done.status}: ${JSON.stringify(done.error)}`);
  return String(job.input["textSourceId"]);
}
