import { LRUCache } from "lru-cache";

/**
 * An isolate's memory of rows it read lately, for SHORT_CACHE_TTL_MS: what a request would otherwise
 * wait a D1 round trip for on every call (the caller's key, the storage connection a job names). The
 * isolate that changes such a row clears its cache at once; every other isolate sees the change within
 * the TTL (docs/api.md, "Read-your-writes").
 */
export const SHORT_CACHE_TTL_MS = 5_000;

/**
 * Bounded (a flood of distinct keys evicts the least recent, never grows the isolate), and
 * `ttlResolution: 0` reads the clock on every get: lru-cache otherwise keeps its last reading until a
 * timer clears it, and a timer set during one request of a Worker need not run after that request.
 */
export function shortCache<V extends object>(max: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ max, ttl: SHORT_CACHE_TTL_MS, ttlResolution: 0 });
}
