import { afterEach } from "vitest";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";

/**
 * A loopback HTTP server that answers the way a hostile customer's server would: a redirect to
 * somewhere else, a body that drips slowly or never ends, an error with a body of many megabytes,
 * a `Range` request answered with the whole stream. It records what reached it (requests, request
 * body bytes, connections) and how much it managed to send, so tests can assert that a redirect
 * target received nothing and that a reader stopped early. Shared by the node tests, the Workers
 * tests' global setup and the end-to-end tests.
 */

export type Answer =
  /** A redirect (302 unless `status` says otherwise) to `location`; no body. */
  | { redirect: string; status?: number }
  /** A plain answer. */
  | { status: number; body?: string | Uint8Array; headers?: Record<string, string> }
  /**
   * `bytes` bytes (Infinity: until the client goes away), `chunkBytes` at a time, `intervalMs`
   * apart, after `headers`; `declareLength` sends a Content-Length of `bytes`, or of the number
   * given (a lie, when it differs), else the body is chunked.
   */
  | {
      stream: {
        status?: number;
        bytes: number;
        chunkBytes?: number;
        intervalMs?: number;
        headers?: Record<string, string>;
        declareLength?: boolean | number;
      };
    };

export interface Seen {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: IncomingMessage["headers"];
  /** Bytes of request body received. */
  bodyBytes: number;
  /** Bytes of response body written to the socket so far. */
  bytesSent: number;
  /** The client went away (or the answer ended). */
  closed: boolean;
}

export class HostileServer {
  readonly seen: Seen[] = [];
  /** TCP connections accepted, whether or not a request followed. */
  connections = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Answers every request with `answer(request)`; without one, 200 "listening" (a bystander that records what reaches it). */
  static async start(answer: (req: Seen) => Answer = () => ({ status: 200, body: "listening" })): Promise<HostileServer> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const hostile = new HostileServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on("connection", () => (hostile.connections += 1));
    server.on("request", (req: IncomingMessage, res: ServerResponse) => void hostile.handle(req, res, answer));
    return hostile;
  }

  /** Requests that reached it. */
  get requests(): number {
    return this.seen.length;
  }

  /** Response bytes written, over every request. */
  get bytesSent(): number {
    return this.seen.reduce((n, s) => n + s.bytesSent, 0);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse, answer: (req: Seen) => Answer): Promise<void> {
    const seen: Seen = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: req.headers,
      bodyBytes: 0,
      bytesSent: 0,
      closed: false,
    };
    this.seen.push(seen);
    res.on("close", () => (seen.closed = true));
    // The answer goes out before the request body is read: a redirect must not wait for a PUT's body.
    req.on("data", (chunk: Buffer) => (seen.bodyBytes += chunk.byteLength));
    const a = answer(seen);
    if ("redirect" in a) {
      res.writeHead(a.status ?? 302, { location: a.redirect, "content-length": "0" });
      res.end();
      return;
    }
    if ("status" in a) {
      const body = typeof a.body === "string" ? Buffer.from(a.body) : Buffer.from(a.body ?? new Uint8Array(0));
      res.writeHead(a.status, { "content-length": String(body.byteLength), ...a.headers });
      seen.bytesSent += body.byteLength;
      res.end(body);
      return;
    }
    const { status = 200, bytes, chunkBytes = 64 * 1024, intervalMs = 0, headers = {}, declareLength = false } = a.stream;
    const declared = typeof declareLength === "number" ? declareLength : declareLength && Number.isFinite(bytes) ? bytes : null;
    res.writeHead(status, { ...(declared !== null ? { "content-length": String(declared) } : {}), ...headers });
    const chunk = Buffer.alloc(chunkBytes, 0x41);
    while (!seen.closed && seen.bytesSent < bytes) {
      const part = chunk.subarray(0, Math.min(chunkBytes, bytes - seen.bytesSent));
      seen.bytesSent += part.byteLength;
      // Backpressure: a reader that stops reading stops the stream once the socket's buffers are full.
      if (!res.write(part))
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      if (intervalMs > 0) await sleep(intervalMs);
    }
    // A body shorter than it declared ends with the connection, as a server that lied would.
    if (seen.closed) return;
    if (declared !== null && declared > seen.bytesSent) res.destroy();
    else res.end();
  }
}

/**
 * The server starter of a test file: each server a test starts is closed after that test. Call it at
 * the top of the file (or of a describe block), where it registers its `afterEach`.
 */
export function hostileServers(): (answer?: (req: Seen) => Answer) => Promise<HostileServer> {
  const open: HostileServer[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((server) => server.close()));
  });
  return async (answer) => {
    const server = await HostileServer.start(answer);
    open.push(server);
    return server;
  };
}
