import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A scriptable HTTP server on 127.0.0.1 standing in for a speech API. Each request is recorded
 * (method, path, headers, body) and answered by the next scripted reply, or by the fallback once
 * the script runs out; tests script "429 then 200" or "500 then 200" sequences this way.
 */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** The body re-read as a WHATWG Request, for multipart (formData) and JSON parsing. */
  asRequest(): Request;
}

export interface Reply {
  status: number;
  json?: unknown;
  text?: string;
  headers?: Record<string, string>;
  /** Delay before answering, to exercise client timeouts. */
  delayMs?: number;
}

export interface FakeSpeechServer {
  url: string;
  requests: RecordedRequest[];
  /** Queues replies, answered in order. */
  script(...replies: Reply[]): void;
  /** Answer used when the script is empty. */
  fallback(reply: Reply): void;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of req) parts.push(chunk as Buffer);
  return Buffer.concat(parts);
}

export async function startFakeSpeechServer(): Promise<FakeSpeechServer> {
  const queue: Reply[] = [];
  let fallbackReply: Reply = { status: 500, json: { error: "no reply scripted" } };
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(",") : (v ?? "")]));
      const path = req.url ?? "/";
      requests.push({
        method: req.method ?? "GET",
        path,
        headers,
        body,
        asRequest: () => new Request(`http://fake${path}`, { method: req.method ?? "POST", headers, body: body.length ? new Uint8Array(body) : null }),
      });
      const reply = queue.shift() ?? fallbackReply;
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if (res.destroyed) return;
      const payload = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? "");
      res.writeHead(reply.status, { "content-type": reply.json !== undefined ? "application/json" : "text/plain", ...reply.headers });
      res.end(payload);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    script: (...replies) => void queue.push(...replies),
    fallback: (reply) => void (fallbackReply = reply),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
