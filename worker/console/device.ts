import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { b64decode, b64encode, safeEqual } from "../platform/crypto";
import { isLoopback } from "../auth/session";

/**
 * Device cookies (OWASP's answer to "an attacker can lock any account out"): after a successful
 * sign-in the browser gets a signed, HttpOnly cookie naming the account (by a keyed hash, not the
 * email). A sign-in for that account from that browser is not counted against the account's email
 * (auth/sign-in-throttle.ts), so failures sprayed at the email from elsewhere do not keep its owner
 * out; the browser's own address is still throttled. The cookie proves nothing else and opens no
 * session. It is signed with a key derived from ENCRYPTION_KEY (HKDF); without a usable key no cookie
 * is issued or trusted and every attempt is counted against the email.
 */

const SECURE_COOKIE = "__Host-media_jobs_device";
const LOOPBACK_COOKIE = "media_jobs_device";
export const DEVICE_COOKIE_MAX_AGE_S = 90 * 24 * 3600;
const VERSION = "v1";

const text = (s: string) => new TextEncoder().encode(s);
const b64url = (bytes: Uint8Array) => b64encode(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

async function deviceKey(encryptionKey: string | undefined): Promise<CryptoKey | null> {
  try {
    const raw = b64decode(encryptionKey ?? "");
    if (raw.length !== 32) return null;
    const ikm = await crypto.subtle.importKey("raw", raw, "HKDF", false, ["deriveKey"]);
    return await crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: text("media-jobs console device cookie v1") },
      ikm,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign"],
    );
  } catch {
    return null;
  }
}

const mac = async (key: CryptoKey, message: string) => b64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, text(message))));

/** The account's name inside the cookie: a keyed hash of the email, so the cookie does not carry the address. */
const accountTag = async (key: CryptoKey, email: string) => (await mac(key, `account\n${email}`)).slice(0, 22);

const cookieName = (c: Context) => (isLoopback(c.req.url) ? LOOPBACK_COOKIE : SECURE_COOKIE);

/** True when the request carries an unexpired device cookie this service issued for `email`. */
export async function isTrustedDevice(c: Context, encryptionKey: string | undefined, email: string, now = Date.now()): Promise<boolean> {
  const value = getCookie(c, cookieName(c));
  if (!value) return false;
  const key = await deviceKey(encryptionKey);
  if (!key) return false;
  const [version, tag, expires, sig] = value.split(".");
  if (version !== VERSION || !tag || !expires || !sig || !/^\d{1,12}$/.test(expires)) return false;
  if (Number(expires) * 1000 <= now) return false;
  if (!safeEqual(sig, await mac(key, `${version}.${tag}.${expires}`))) return false;
  return safeEqual(tag, await accountTag(key, email));
}

/** Sets (or renews) the browser's device cookie for `email` after a successful sign-in. */
export async function rememberDevice(c: Context, encryptionKey: string | undefined, email: string, now = Date.now()): Promise<void> {
  const key = await deviceKey(encryptionKey);
  if (!key) return;
  const expires = String(Math.floor(now / 1000) + DEVICE_COOKIE_MAX_AGE_S);
  const tag = await accountTag(key, email);
  setCookie(c, cookieName(c), `${VERSION}.${tag}.${expires}.${await mac(key, `${VERSION}.${tag}.${expires}`)}`, {
    httpOnly: true,
    secure: !isLoopback(c.req.url),
    sameSite: "Strict",
    path: "/",
    maxAge: DEVICE_COOKIE_MAX_AGE_S,
  });
}
