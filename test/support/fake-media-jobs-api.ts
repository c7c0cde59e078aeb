import http from "node:http";
import type { AddressInfo } from "node:net";
import { newJob, type Job } from "../../contracts/job";
import type { Workflow, WorkflowStepView } from "../../contracts/workflows";

/**
 * A small stand-in for the public API on 127.0.0.1, for the client and CLI tests: each route answers
 * from a script of replies (the last one repeats), and every request is recorded.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Reply = { status?: number; body?: unknown; headers?: Record<string, string> } | "drop";
type Responder = Reply | ((req: RecordedRequest) => Reply);

export interface FakeApi {
  url: string;
  requests: RecordedRequest[];
  /** Scripts `METHOD /path`: the n-th request gets the n-th reply, later ones the last. */
  on(method: string, path: string, ...replies: Responder[]): void;
  close(): Promise<void>;
}

export const ok = (data: unknown, metadata: Record<string, unknown> = {}, status = 200): Reply => ({ status, body: { data, metadata } });
export const apiError = (
  status: number,
  code: string,
  message: string,
  details: Array<{ path: string; issue: string }> = [],
  headers = {},
): Reply => ({
  status,
  body: { data: null, error: { code, message, details }, metadata: {} },
  headers,
});

export async function startFakeApi(): Promise<FakeApi> {
  const routes = new Map<string, { replies: Responder[]; served: number }>();
  const requests: RecordedRequest[] = [];
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://x");
    const recorded: RecordedRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body: Buffer.concat(chunks).toString("utf8"),
    };
    requests.push(recorded);
    const route = routes.get(`${recorded.method} ${recorded.path}`);
    let reply: Reply;
    if (!route) reply = apiError(404, "notFound", `no route for ${recorded.method} ${recorded.path}`);
    else {
      const r = route.replies[Math.min(route.served++, route.replies.length - 1)]!;
      reply = typeof r === "function" ? r(recorded) : r;
    }
    if (reply === "drop") {
      req.socket.destroy();
      return;
    }
    res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers });
    const body = reply.body;
    res.end(body === undefined ? "" : typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on(method, path, ...replies) {
      routes.set(`${method} ${path}`, { replies, served: 0 });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A complete Job object as the API returns it, with the given fields changed. */
export function jobFixture(overrides: Partial<Job> = {}): Job {
  const job = newJob({
    jobId: "job_test1",
    serviceType: "transcription",
    priority: "normal",
    workspaceId: "wsp_1",
    projectId: "prj_1",
    workspacePlan: "pro",
    input: { sourceType: "s3_direct", connectionId: "stc_1", bucket: "media", sourceKey: "in/talk.mp4", textSourceId: "txt_1" },
    webhookUrl: null,
    createdByLabel: "ci",
    createdByKind: "api_key",
    apiKeyLabel: "ci",
    apiKeyId: "pak_1",
    isConsoleKey: false,
    createdAt: "2026-11-20T10:00:00.000Z",
    userMetadata: null,
  });
  return { ...job, status: "queued", ...overrides };
}

/** The same job moving through states, one `updatedAt` per step, for scripted polling. */
export function jobStates(...states: Array<Partial<Job>>): Job[] {
  return states.map((s, i) => jobFixture({ updatedAt: `2026-11-20T10:00:${String(i).padStart(2, "0")}.000Z`, ...s }));
}

/** A Workflow object as GET /v1/workflows/{id} answers it: two steps, transcribe then clips, with the given fields changed. */
export function workflowFixture(overrides: Partial<Workflow> = {}): Workflow {
  const step = (id: string, serviceType: WorkflowStepView["serviceType"], dependsOn: string[]): WorkflowStepView => ({
    id,
    serviceType,
    dependsOn,
    status: "waiting",
    jobId: null,
    error: null,
    createdAt: null,
    endedAt: null,
  });
  return {
    workflowId: "wfl_test1",
    workspaceId: "wsp_1",
    projectId: "prj_1",
    presetId: null,
    status: "running",
    steps: [step("transcribe", "transcription", []), step("clips", "clip_generation", ["transcribe"])],
    credits: {},
    trigger: null,
    variables: {},
    error: null,
    webhookUrl: null,
    userMetadata: null,
    createdByLabel: "ci",
    cancelRequestedAt: null,
    createdAt: "2026-11-20T10:00:00.000Z",
    updatedAt: "2026-11-20T10:00:00.000Z",
    endedAt: null,
    ...overrides,
  };
}

/** The fixture's two steps with these statuses and job ids (null: not created yet). */
export function workflowSteps(
  transcribe: [WorkflowStepView["status"], string | null],
  clips: [WorkflowStepView["status"], string | null],
): WorkflowStepView[] {
  const [t, c] = workflowFixture().steps;
  return [
    { ...t!, status: transcribe[0], jobId: transcribe[1] },
    { ...c!, status: clips[0], jobId: clips[1] },
  ];
}
