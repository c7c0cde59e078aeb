import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * The loopback HTTP server under every fake hosted API (openai-compatible.ts, workers-ai.ts,
 * replicate.ts). A fake registers its documented routes; this base records every request, answers
 * unknown routes 404, and applies scripted faults before the routes see a request:
 *
 *   fake.fail({ status: 500 })                       a transient server error, then normal answers
 *   fake.fail({ status: 429, retryAfter: "1" })      rate limited, with Retry-After
 *   fake.fail({ delayMs: 1_000 })                    a slow answer (for timeouts and cancels)
 *   fake.fail({ status: 503 }, { status: 503 })      faults queue up, one per request
 *   fake.failAlways({ status: 503 })                 until reset()
 *
 * Error bodies are in the provider's own error format (each fake's `errorBody`).
 */
export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** When it arrived (Date.now()). */
  at: number;
  /** The body parsed as JSON (throws if it is not JSON). */
  json(): unknown;
  /** The body parsed as multipart or urlencoded form data. */
  formData(): Promise<FormData>;
}

export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  /** Raw bytes (an image file), sent as `application/octet-stream` unless `headers` say otherwise. */
  body?: Uint8Array;
  headers?: Record<string, string>;
}

export interface Fault {
  /** Answer this status (in the provider's error format) instead of the route's answer. */
  status?: number;
  /** Retry-After header value (delay-seconds or an HTTP-date). */
  retryAfter?: string;
  /** The error message in the body. */
  message?: string;
  /** Wait this long before answering (the fault, or the route's answer when no status is set). */
  delayMs?: number;
  /** Only requests this matches take the fault (default: the next request, whatever it is). */
  match?: (req: RecordedRequest) => boolean;
}

export type RouteHandler = (req: RecordedRequest, params: Record<string, string>) => Reply | Promise<Reply>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler;
}

export abstract class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private faults: Fault[] = [];
  private always: Fault | null = null;
  private readonly pending = new Set<() => void>();
  private server: Server | null = null;
  private base = "";

  /** `http://127.0.0.1:<port>` once listening. */
  get url(): string {
    return this.base;
  }

  /** The provider's error body for a status and message. */
  protected abstract errorBody(status: number, message: string): unknown;

  /**
   * Registers a route. `:name` matches one path segment, `*name` the rest of the path (slashes
   * included, e.g. Workers AI model names `@cf/openai/whisper`).
   */
  route(method: string, path: string, handler: RouteHandler): this {
    const names: string[] = [];
    const source = path
      .split("/")
      .map((part) => {
        if (!part.startsWith(":") && !part.startsWith("*")) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(part.slice(1));
        return part.startsWith(":") ? "([^/]+)" : "(.+)";
      })
      .join("/");
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  /** Queues faults, each taken by the next request it matches. */
  fail(...faults: Fault[]): void {
    this.faults.push(...faults);
  }

  /** Applies `fault` to every request until reset(). */
  failAlways(fault: Fault): void {
    this.always = fault;
  }

  /** Forgets recorded requests and scripted faults; fakes also restore their default answers (call between tests). */
  reset(): void {
    this.requests.length = 0;
    this.faults = [];
    this.always = null;
  }

  async listen(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", () => resolve()));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const wake of this.pending) wake();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  protected error(status: number, message: string, headers?: Record<string, string>): Reply {
    return { status, json: this.errorBody(status, message), ...(headers ? { headers } : {}) };
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const chunk of req) parts.push(chunk as Buffer);
    const recorded = record(req, Buffer.concat(parts));
    this.requests.push(recorded);

    const fault = this.takeFault(recorded);
    if (fault?.delayMs) await this.delay(fault.delayMs);
    if (res.destroyed) return;
    let reply: Reply;
    if (fault?.status) {
      reply = this.error(
        fault.status,
        fault.message ?? defaultMessage(fault.status),
        fault.retryAfter !== undefined ? { "retry-after": fault.retryAfter } : undefined,
      );
    } else {
      reply = await this.dispatch(recorded);
    }
    if (res.destroyed) return;
    const payload = reply.body ?? (reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? ""));
    const type = reply.body ? "application/octet-stream" : reply.json !== undefined ? "application/json" : "text/plain";
    res.writeHead(reply.status, { "content-type": type, ...reply.headers });
    res.end(payload);
  }

  private takeFault(req: RecordedRequest): Fault | null {
    const i = this.faults.findIndex((f) => f.match?.(req) ?? true);
    if (i >= 0) return this.faults.splice(i, 1)[0]!;
    return this.always && (this.always.match?.(req) ?? true) ? this.always : null;
  }

  private async dispatch(req: RecordedRequest): Promise<Reply> {
    const pathname = req.path.split("?")[0]!;
    for (const route of this.routes) {
      const m = route.method === req.method ? route.pattern.exec(pathname) : null;
      if (!m) continue;
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(m[i + 1]!)]));
      try {
        return await route.handler(req, params);
      } catch (err) {
        return this.error(400, `bad request: ${(err as Error).message}`);
      }
    }
    return this.error(404, `no route for ${req.method} ${pathname}`);
  }

  /** A delay that close() cuts short, so a hung answer never holds the test process. */
  private delay(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.pending.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.pending.add(wake);
    });
  }
}

function record(req: IncomingMessage, body: Buffer): RecordedRequest {
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]));
  const method = req.method ?? "GET";
  const path = req.url ?? "/";
  return {
    method,
    path,
    headers,
    body,
    at: Date.now(),
    json: () => JSON.parse(body.toString("utf8")) as unknown,
    formData: () => new Request(`http://fake${path}`, { method: "POST", headers, body: new Uint8Array(body) }).formData(),
  };
}

function defaultMessage(status: number): string {
  if (status === 429) return "rate limited";
  if (status >= 500) return "internal server error";
  return `error ${status}`;
}

/** Checks `authorization: Bearer <token>`; the fakes answer 401 in their own format otherwise. */
export function hasBearer(req: RecordedRequest, token: string | undefined): boolean {
  return token === undefined || req.headers.authorization === `Bearer ${token}`;
}
