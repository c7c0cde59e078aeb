import { sha256Hex } from "../platform/crypto";
import type { BackoffRule, ThrottleKey } from "../platform/rate-limit";

/**
 * Who a sign-in attempt is counted against (review finding M5). Three keys, every attempt under all
 * of them, decided before the email is looked up, so a known and an unknown email are throttled
 * alike and answered alike:
 *
 * - the client's address: many emails from one place (spraying). Grows to 15 minutes; a success from
 *   the address clears it.
 * - the address with the email: one account guessed from one place. Grows to an hour; cleared by a
 *   success from the address.
 * - the email, in one of 65,536 shared buckets (the first 16 bits of its SHA-256): one account guessed
 *   from many places. Its wait stays short (30 s at most), and a browser that has signed in to the
 *   account before (its device cookie, console/device.ts) skips it, so a crowd of addresses cannot keep
 *   the owner out. Buckets, not emails: made-up emails add no rows of their own.
 *
 * An unknown email therefore writes only rows keyed by the address and a counter in a shared bucket.
 */
export const SIGN_IN_RULES = {
  address: { freeAttempts: 20, baseDelayMs: 1000, maxDelayMs: 15 * 60_000, windowMs: 24 * 3_600_000 },
  addressEmail: { freeAttempts: 5, baseDelayMs: 1000, maxDelayMs: 3_600_000, windowMs: 24 * 3_600_000 },
  email: { freeAttempts: 10, baseDelayMs: 1000, maxDelayMs: 30_000, windowMs: 3_600_000 },
} satisfies Record<string, BackoffRule>;

export interface SignInKeys {
  /** Every key the attempt is admitted under. */
  all: ThrottleKey[];
  /** What a success from this address clears. */
  address: string[];
  /** The shared email bucket, when it applies: a success takes its attempt back. */
  emailBucket: string | null;
}

/** `address` is clientAddressKey()'s; `email` is normalised. A trusted device is not counted against the email. */
export async function signInKeys(address: string, email: string, trustedDevice: boolean): Promise<SignInKeys> {
  const hash = await sha256Hex(email);
  const keys = {
    address: `sign-in:a:${address}`,
    addressEmail: `sign-in:ae:${address}|${hash.slice(0, 16)}`,
    email: `sign-in:e:${hash.slice(0, 4)}`,
  };
  const all: ThrottleKey[] = [
    { key: keys.address, rule: SIGN_IN_RULES.address },
    { key: keys.addressEmail, rule: SIGN_IN_RULES.addressEmail },
  ];
  if (!trustedDevice) all.push({ key: keys.email, rule: SIGN_IN_RULES.email });
  return { all, address: [keys.address, keys.addressEmail], emailBucket: trustedDevice ? null : keys.email };
}
