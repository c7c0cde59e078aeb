import { z } from "zod";
import { b64decode, b64encode, safeEqual } from "./crypto";

/**
 * Console passwords: PBKDF2-SHA-256 through WebCrypto with a 16-byte random salt per password.
 * 100,000 iterations is the most Cloudflare's production runtime allows for PBKDF2 (it refuses more
 * with NotSupportedError; cloudflare/workerd#1346). The open-source workerd that runs locally and in the
 * tests has no such cap, so going above it would pass every local test and fail only when deployed.
 * The stored string names its algorithm and cost (`pbkdf2-sha256$<iterations>$<salt>$<hash>`, base64)
 * so the cost can be raised later: a hash below the current cost is replaced at the next sign-in.
 */
export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const SCHEME = "pbkdf2-sha256";

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

/** Length counts characters (code points), not UTF-16 units, so a password of emoji is measured fairly. */
export const PasswordSchema = z
  .string()
  .refine((p) => [...p].length >= PASSWORD_MIN_LENGTH, {
    message: `a password needs at least ${PASSWORD_MIN_LENGTH} characters`,
    params: { issue: "tooSmall" },
  })
  .refine((p) => [...p].length <= PASSWORD_MAX_LENGTH, {
    message: `a password has at most ${PASSWORD_MAX_LENGTH} characters`,
    params: { issue: "tooBig" },
  });

async function derive(password: string, salt: Uint8Array, iterations: number): Promise<Uint8Array> {
  // NFC so the same password typed on two keyboards (composed or decomposed accents) hashes the same.
  const material = await crypto.subtle.importKey("raw", new TextEncoder().encode(password.normalize("NFC")), "PBKDF2", false, [
    "deriveBits",
  ]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, material, HASH_BITS);
  return new Uint8Array(bits);
}

export async function hashPassword(password: string, iterations = PBKDF2_ITERATIONS): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, iterations);
  return `${SCHEME}$${iterations}$${b64encode(salt)}$${b64encode(hash)}`;
}

function parse(stored: string): { iterations: number; salt: Uint8Array; hash: string } | null {
  const [scheme, iter, salt, hash] = stored.split("$");
  const iterations = Number(iter);
  if (scheme !== SCHEME || !salt || !hash || !Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS) return null;
  return { iterations, salt: b64decode(salt), hash };
}

/** True when `password` matches `stored`; the comparison is constant-time. A malformed hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const p = parse(stored);
  if (!p) return false;
  return safeEqual(b64encode(await derive(password, p.salt, p.iterations)), p.hash);
}

/** True when the stored hash is cheaper than today's cost and should be replaced after a successful sign-in. */
export function needsRehash(stored: string): boolean {
  const p = parse(stored);
  return !p || p.iterations < PBKDF2_ITERATIONS;
}

/**
 * A hash of no one's password: sign-in verifies against it when the email is unknown, so an unknown
 * email costs the same PBKDF2 work as a wrong password and the answer's timing does not tell them apart.
 */
export const DUMMY_PASSWORD_HASH = `${SCHEME}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=`;
