import { shortCache } from "../platform/short-cache";
import type { apiKeys } from "../db/schema";
import type { Plan } from "../../contracts/service-types";

/**
 * API keys this isolate has looked up lately, by the SHA-256 of their secret, for SHORT_CACHE_TTL_MS
 * (platform/short-cache.ts).
 * Every keyed request used to wait one D1 round trip for its key before doing its own work; a client
 * sending many requests now pays it once per isolate and interval (bench/api.ts, bench/search-latency.ts).
 *
 * What this costs, documented in docs/api.md ("Read-your-writes"): a key revoked through another
 * isolate (another location, or the operator's SQL) keeps working there for at most the TTL; a
 * revoke through this isolate forgets every cached key at once (`forgetKeys`). Only Bearer keys are
 * cached, never a console session (its idle expiry is written on use), and never a miss: a new key
 * works at once, and a guessed secret still costs the guesser a lookup each time.
 */
export interface CachedKey {
  key: typeof apiKeys.$inferSelect;
  plan: Plan;
}

const cache = shortCache<CachedKey>(2_000);

export function cachedKey(secretHash: string): CachedKey | undefined {
  return cache.get(secretHash);
}

export function rememberKey(secretHash: string, found: CachedKey): void {
  cache.set(secretHash, found);
}

/** After a key is revoked or changed here: the next request of every key reads D1 again. */
export function forgetKeys(): void {
  cache.clear();
}
