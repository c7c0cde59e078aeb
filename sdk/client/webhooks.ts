import { WebhookVerificationError } from "./errors";
import type { WebhookEvent } from "./types";

/**
 * Standard Webhooks verification with WebCrypto, the way the Worker signs (queues/webhook-consumer.ts):
 * `webhook-signature` holds space-separated `v1,<base64 HMAC-SHA256>` entries (two during a secret
 * rotation) of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed by the base64 part of `whsec_…`.
 * Runs in Node, browsers and Workers; no node: imports.
 */

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** How far `webhook-timestamp` may be from now, either way (replay guard). Default 300 s. */
  toleranceSec?: number;
  /** The clock, in ms. Default `Date.now()`. */
  now?: number;
}

export const DEFAULT_TOLERANCE_SEC = 300;

function header(headers: HeaderSource, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() === wanted && v !== undefined) return Array.isArray(v) ? v.join(" ") : v;
  }
  return null;
}

function base64ToBytes(b64: string): Uint8Array<ArrayBuffer> | null {
  try {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  const raw = base64ToBytes(secret.replace(/^whsec_/, ""));
  if (!raw) throw new TypeError("webhook secret must be whsec_ followed by base64");
  return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
}

/**
 * Verifies a delivery and returns its parsed body. `rawBody` must be the bytes as received (not
 * re-serialised JSON). `secret` may be a list: during a rotation, accept the new and the old secret.
 * Throws `WebhookVerificationError` when anything does not verify.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: HeaderSource,
  secret: string | readonly string[],
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  const id = header(headers, "webhook-id");
  const ts = header(headers, "webhook-timestamp");
  const sigHeader = header(headers, "webhook-signature");
  if (!id || !ts || !sigHeader) {
    throw new WebhookVerificationError("missingHeaders", "webhook-id, webhook-timestamp and webhook-signature are required");
  }
  if (!/^\d+$/.test(ts)) throw new WebhookVerificationError("badTimestamp", `webhook-timestamp is not Unix seconds: ${ts}`);
  const tolerance = options.toleranceSec ?? DEFAULT_TOLERANCE_SEC;
  const nowSec = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSec - Number(ts)) > tolerance) {
    throw new WebhookVerificationError("timestampOutOfTolerance", `webhook-timestamp ${ts} is more than ${tolerance} s from now`);
  }

  const encoder = new TextEncoder();
  const body = typeof rawBody === "string" ? encoder.encode(rawBody) : rawBody;
  const prefix = encoder.encode(`${id}.${ts}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  const candidates = sigHeader
    .split(" ")
    .map((entry) => entry.split(","))
    .filter(([version, sig]) => version === "v1" && sig)
    .map(([, sig]) => base64ToBytes(sig!))
    .filter((sig): sig is Uint8Array<ArrayBuffer> => sig !== null);
  const secrets = typeof secret === "string" ? [secret] : secret;
  for (const s of secrets) {
    const key = await hmacKey(s);
    // subtle.verify compares in constant time.
    for (const sig of candidates) if (await crypto.subtle.verify("HMAC", key, sig, signed)) return parse(body);
  }
  throw new WebhookVerificationError("badSignature", "no webhook-signature entry matches the body and secret");
}

function parse(body: Uint8Array): WebhookEvent {
  return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
}
