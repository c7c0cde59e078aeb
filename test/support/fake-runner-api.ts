import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { LeasedTask } from "../../contracts/runner-protocol";
import type { StepSpec } from "../../contracts/pipelines";

/**
 * A fake of the server side of the runner protocol (`/runner/v1/…`) on 127.0.0.1, for runner
 * tests. It hands out queued tasks on lease (only to runners advertising the task's handler),
 * records every call in order, answers in the `{ data, metadata }` envelope, and lets a test
 * request a cancel, take a lease away (409 leaseLost) or inject error statuses.
 */

export type RunnerRoute = "lease" | "heartbeat" | "events" | "complete" | "fail" | "cancelled" | "release";

/** A request body as the fake saw it (loosely typed: the runner's client validated it). */
export interface RecordedBody {
  leaseToken?: string;
  runnerId?: string;
  lanes?: string[];
  handlers?: string[];
  events?: {
    stage: string;
    event: string;
    at?: string;
    details?: Record<string, unknown>;
    error?: { code: string; message: string };
  }[];
  result?: Record<string, unknown>;
  error?: { code: string; message: string; retryable: boolean };
}

export interface RecordedCall {
  route: RunnerRoute;
  taskId: string | null;
  body: RecordedBody;
  /** ms since the fake started. */
  at: number;
  status: number;
  authorization: string | undefined;
}

interface TaskState {
  task: LeasedTask;
  cancelRequested: boolean;
  /** Which answers carry the cancel flag. */
  cancelVia: "heartbeat" | "events" | "both";
  /** Lease over: every further call answers 409 leaseLost. */
  lost: boolean;
  outcome: "complete" | "fail" | "cancelled" | "release" | null;
}

export interface FakeTaskInit {
  taskId?: string;
  attempt?: number;
  heartbeatIntervalSec?: number;
  input?: Record<string, unknown>;
  step?: Partial<StepSpec>;
  storage?: LeasedTask["storage"];
  presigned?: LeasedTask["presigned"];
  /** The platform settings the task carries (`task.settings`), e.g. `{ runner: { timeLimits: … } }`. */
  settings?: LeasedTask["settings"];
}

export const FAKE_RUNNER_TOKEN = "rt_test_token";
const ROUTE = /^\/runner\/v1\/tasks\/([^/]+)\/(heartbeat|events|complete|fail|cancelled|release)$/;

export class FakeRunnerApi {
  readonly calls: RecordedCall[] = [];
  private readonly queue: TaskState[] = [];
  private readonly tasks = new Map<string, TaskState>();
  private readonly injected = new Map<RunnerRoute, number[]>();
  private readonly t0 = Date.now();
  private seq = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: string,
  ) {}

  static async start(opts: { token?: string } = {}): Promise<FakeRunnerApi> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const api = new FakeRunnerApi(server, `http://127.0.0.1:${port}`, opts.token ?? FAKE_RUNNER_TOKEN);
    server.on("request", (req, res) => void api.handle(req, res));
    return api;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Queues a task for lease; defaults to the `test.work` handler with stages `one`, `two`. */
  addTask(init: FakeTaskInit = {}): LeasedTask {
    const taskId = init.taskId ?? `tsk_${++this.seq}`;
    const task: LeasedTask = {
      taskId,
      leaseToken: `lt_${taskId}`,
      leaseUntil: new Date(Date.now() + 60_000).toISOString(),
      heartbeatIntervalSec: init.heartbeatIntervalSec ?? 0.05,
      jobId: `job_${taskId}`,
      attempt: init.attempt ?? 0,
      serviceType: "transcription",
      step: {
        service: "test",
        name: "work",
        executor: "runner",
        handler: "test.work",
        stages: ["one", "two"],
        params: {},
        ...init.step,
      },
      input: init.input ?? { n: this.seq },
      storage: init.storage ?? null,
      ...(init.presigned ? { presigned: init.presigned } : {}),
      settings: init.settings ?? {},
      outputs: {},
      scratchPrefix: null,
    };
    const state: TaskState = { task, cancelRequested: false, cancelVia: "both", lost: false, outcome: null };
    this.queue.push(state);
    this.tasks.set(taskId, state);
    return task;
  }

  /** Heartbeat and/or events answers for this task say `cancelRequested: true` from now on. */
  requestCancel(taskId: string, via: TaskState["cancelVia"] = "both"): void {
    const s = this.state(taskId);
    s.cancelRequested = true;
    s.cancelVia = via;
  }

  /** Every further call for this task answers 409 leaseLost. */
  loseLease(taskId: string): void {
    this.state(taskId).lost = true;
  }

  /** The next calls to `route` answer these statuses (with an error envelope), in order. */
  injectStatuses(route: RunnerRoute, statuses: number[]): void {
    this.injected.set(route, [...(this.injected.get(route) ?? []), ...statuses]);
  }

  /** The fake's clock, on the same scale as `RecordedCall.at`. */
  now(): number {
    return Date.now() - this.t0;
  }

  callsFor(taskId: string): RecordedCall[] {
    return this.calls.filter((c) => c.taskId === taskId);
  }

  /** Compact timeline of a task: `events:one:started`, `heartbeat`, `complete`, … (successful calls). */
  timeline(taskId: string, opts: { heartbeats?: boolean } = {}): string[] {
    return this.callsFor(taskId)
      .filter((c) => c.status === 200 && (opts.heartbeats || c.route !== "heartbeat"))
      .flatMap((c) => (c.route === "events" ? (c.body.events ?? []).map((e) => `events:${e.stage}:${e.event}`) : [c.route]));
  }

  outcome(taskId: string): TaskState["outcome"] {
    return this.state(taskId).outcome;
  }

  /** Polls until `pred` holds; fails with `what` after `timeoutMs`. */
  async waitFor(pred: () => boolean, what = "condition", timeoutMs = 5_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  waitForOutcome(taskId: string, timeoutMs?: number): Promise<void> {
    return this.waitFor(() => this.state(taskId).outcome !== null, `an outcome for ${taskId}`, timeoutMs);
  }

  waitForEvent(taskId: string, entry: string, timeoutMs?: number): Promise<void> {
    return this.waitFor(() => this.timeline(taskId).includes(entry), `${entry} for ${taskId}`, timeoutMs);
  }

  private state(taskId: string): TaskState {
    const s = this.tasks.get(taskId);
    if (!s) throw new Error(`unknown task ${taskId}`);
    return s;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: RecordedBody = {};
    try {
      body = text ? (JSON.parse(text) as RecordedBody) : {};
    } catch {
      body = {};
    }
    const url = req.url ?? "";
    const m = ROUTE.exec(url);
    const route: RunnerRoute | null = url === "/runner/v1/lease" ? "lease" : ((m?.[2] as RunnerRoute | undefined) ?? null);
    const taskId = m?.[1] ? decodeURIComponent(m[1]) : null;

    const reply = (status: number, payload: unknown): void => {
      if (route) {
        this.calls.push({ route, taskId, body, at: Date.now() - this.t0, status, authorization: req.headers.authorization });
      }
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(payload));
    };
    const ok = (data: unknown) => reply(200, { data, metadata: {} });
    const error = (status: number, code: string, message: string) => reply(status, { data: null, error: { code, message, details: [] } });

    if (req.method !== "POST" || !route) return error(404, "notFound", "no such route");
    if (req.headers.authorization !== `Bearer ${this.token}`) return error(401, "unauthorized", "bad runner token");
    const injected = this.injected.get(route)?.shift();
    if (injected !== undefined) return error(injected, injected === 429 ? "rateLimited" : "internal", "injected");

    if (route === "lease") {
      const handlers = Array.isArray(body.handlers) ? body.handlers : [];
      const i = this.queue.findIndex((s) => handlers.includes(s.task.step.handler));
      const next = i >= 0 ? this.queue.splice(i, 1)[0] : undefined;
      return ok({ task: next?.task ?? null });
    }

    const s = taskId ? this.tasks.get(taskId) : undefined;
    if (!s) return error(404, "notFound", "no such task");
    if (body.leaseToken !== s.task.leaseToken || s.lost) return error(409, "leaseLost", "lease lost");
    switch (route) {
      case "heartbeat":
        return ok({
          leaseUntil: new Date(Date.now() + 60_000).toISOString(),
          cancelRequested: s.cancelRequested && s.cancelVia !== "events",
        });
      case "events":
        return ok({ cancelRequested: s.cancelRequested && s.cancelVia !== "heartbeat" });
      default:
        s.outcome = route;
        s.lost = true;
        return ok({ ok: true });
    }
  }
}
