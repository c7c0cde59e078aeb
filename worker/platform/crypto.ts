/**
 * Secrets at rest (storage connection secrets, webhook signing secrets, presigned URLs) are sealed
 * with AES-256-GCM under the Worker secret ENCRYPTION_KEY.
 *
 * Format `v1.<kid>.<base64(iv[12] || ciphertext)>`: `kid` names the key (the first 4 bytes of its
 * SHA-256, hex), so a later rotation can keep several keys and pick the right one. Each value is
 * bound to where it belongs by the GCM associated data `v1.<kid>.<purpose>:<rowId>`: moved to another
 * row or column of another purpose (by anyone with D1 write access), it no longer opens.
 *
 * Values sealed before the format existed (`base64(iv || ciphertext)`, no associated data) still
 * open; every write seals in the current format, so they are replaced as they are rewritten.
 */

/** What a sealed value is for: its table and column (both webhook columns share one: a rotation moves the value). */
export const SEAL_PURPOSES = {
  connectionSecret: "storage_connections.secret_access_key",
  webhookSecret: "projects.webhook_secret",
  presignedGrant: "job_secrets.presigned",
  eventSecret: "storage_connections.event_secret",
} as const;
export type SealPurpose = (typeof SEAL_PURPOSES)[keyof typeof SEAL_PURPOSES];

/** The purpose and the id of the row a value is sealed for. */
export interface SealContext {
  purpose: SealPurpose;
  rowId: string;
}

const VERSION = "v1";

function b64decode(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (ch) => ch.charCodeAt(0));
}

function b64encode(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

async function importKey(keyB64: string): Promise<{ key: CryptoKey; kid: string }> {
  const raw = b64decode(keyB64);
  if (raw.length !== 32) throw new Error("ENCRYPTION_KEY must be base64 of exactly 32 bytes");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw));
  const kid = [...digest.slice(0, 4)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return { key: await crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]), kid };
}

const associatedData = (kid: string, ctx: SealContext) => new TextEncoder().encode(`${VERSION}.${kid}.${ctx.purpose}:${ctx.rowId}`);

export async function seal(keyB64: string, plaintext: string, ctx: SealContext): Promise<string> {
  const { key, kid } = await importKey(keyB64);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ct = new Uint8Array(
    await crypto.subtle.encrypt(
      { name: "AES-GCM", iv, additionalData: associatedData(kid, ctx) },
      key,
      new TextEncoder().encode(plaintext),
    ),
  );
  const out = new Uint8Array(iv.length + ct.length);
  out.set(iv);
  out.set(ct, iv.length);
  return `${VERSION}.${kid}.${b64encode(out)}`;
}

/** Whether a value was sealed before values carried a version, key id and associated data. */
export function isLegacySealed(sealed: string): boolean {
  return !sealed.includes(".");
}

/**
 * Opens a value sealed for `ctx` (or a legacy value, which has no binding to check). Throws when
 * the value was sealed for another purpose or row, under another key, or was altered.
 */
export async function unseal(keyB64: string, sealed: string, ctx: SealContext): Promise<string> {
  const { key, kid } = await importKey(keyB64);
  if (isLegacySealed(sealed)) return decrypt(key, b64decode(sealed));
  const [version, sealedKid, body] = sealed.split(".");
  if (version !== VERSION || body === undefined) throw new Error(`sealed value has an unknown format (${version ?? "none"})`);
  if (sealedKid !== kid) throw new Error(`sealed value is under key ${sealedKid}, not the current ENCRYPTION_KEY (${kid})`);
  return decrypt(key, b64decode(body), associatedData(kid, ctx));
}

async function decrypt(key: CryptoKey, bytes: Uint8Array, additionalData?: Uint8Array): Promise<string> {
  const iv = bytes.slice(0, 12);
  const params = additionalData ? { name: "AES-GCM", iv, additionalData } : { name: "AES-GCM", iv };
  return new TextDecoder().decode(await crypto.subtle.decrypt(params, key, bytes.slice(12)));
}

const hex = (bytes: Uint8Array): string => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");

export async function sha256Hex(input: string): Promise<string> {
  return hex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input))));
}

/** HMAC-SHA256 of `data` under the text `secret`. */
export async function hmacSha256(secret: string, data: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(data)));
}

export async function hmacSha256Hex(secret: string, data: string): Promise<string> {
  return hex(await hmacSha256(secret, data));
}

/** Constant-time string comparison (workerd provides crypto.subtle.timingSafeEqual). */
export function safeEqual(a: string, b: string): boolean {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  if (ea.length !== eb.length) return false;
  return crypto.subtle.timingSafeEqual(ea, eb);
}

export { b64encode, b64decode };
