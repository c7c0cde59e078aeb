import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver written from the Standard Webhooks specification, independent of the
 * service's signing library: signed content is `${webhook-id}.${webhook-timestamp}.${body}`,
 * HMAC-SHA256 keyed with the base64-decoded part of the `whsec_` secret, sent as `v1,<base64>`
 * (several space-separated signatures allowed). Timestamps older than 5 minutes are rejected.
 */
export interface Received {
  id: string;
  timestamp: number;
  body: Record<string, unknown>;
  verified: boolean;
  answeredStatus: number;
}

export function verifyStandardWebhook(secret: string, headers: IncomingHttpHeaders, body: string, toleranceSec = 300): boolean {
  const id = headers["webhook-id"];
  const ts = headers["webhook-timestamp"];
  const sigs = headers["webhook-signature"];
  if (typeof id !== "string" || typeof ts !== "string" || typeof sigs !== "string") return false;
  const timestamp = Number(ts);
  if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > toleranceSec) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const expected = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest();
  return sigs.split(" ").some((s) => {
    const [version, value] = s.split(",");
    if (version !== "v1" || !value) return false;
    const got = Buffer.from(value, "base64");
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
}

export async function startWebhookReceiver(
  secret: () => string,
  answer: (r: Omit<Received, "answeredStatus">, seen: Received[]) => number = () => 200,
) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      const verified = verifyStandardWebhook(secret(), req.headers, body);
      const r = {
        id: String(req.headers["webhook-id"]),
        timestamp: Number(req.headers["webhook-timestamp"]),
        body: JSON.parse(body) as Record<string, unknown>,
        verified,
      };
      const status = verified ? answer(r, received) : 401;
      received.push({ ...r, answeredStatus: status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/hook`, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}
