import { LRUCache } from "lru-cache";
import { randomToken } from "../../contracts/ids";

/**
 * The platform's own object storage (the `BLOBS` R2 binding; `wrangler dev` emulates it under its
 * --persist-to dir): bulk JSON that would otherwise fill the one D1 database (transcript layers,
 * translations, records' item arrays). D1 keeps the pointer (the key) beside what lists and filters
 * need.
 *
 * Rules every owner of a pointer follows:
 * - A key is written once and never overwritten: `blobKey` gives every write a new key (a revision's
 *   content gets its own object), so a key names one immutable value and the in-isolate cache below
 *   can never serve a stale one.
 * - The object is written before the D1 row that points at it, so a crash never leaves a row pointing
 *   at nothing; the worst a crash leaves is an object no row points at, which `blob-sweep.ts` removes.
 * - Objects are JSON, gzip-compressed (word timings compress about 6×).
 */

/** A value's key: `p/{projectId}/{kind}/{ownerId}/{name}.{token}.json.gz`, unique per write. */
export function blobKey(projectId: string, kind: string, ownerId: string, name: string): string {
  for (const [what, part] of [
    ["projectId", projectId],
    ["kind", kind],
    ["ownerId", ownerId],
  ] as const)
    if (!SEGMENT.test(part)) throw new Error(`blob key ${what} is not a plain name: ${JSON.stringify(part)}`);
  // `name` may hold a language key such as `translation.pt-BR`: dots and dashes, never a slash.
  if (!NAME.test(name)) throw new Error(`blob key name is not a plain name: ${JSON.stringify(name)}`);
  return `${BLOB_ROOT}${projectId}/${kind}/${ownerId}/${name}.${randomToken(12)}.json.gz`;
}

/** Every key `blobKey` makes starts here; the sweep lists nothing else. */
export const BLOB_ROOT = "p/";

/** Where every value of one owner (a transcript, a record) lives: deleting an owner deletes this prefix. */
export const ownerPrefix = (projectId: string, kind: string, ownerId: string): string => `${BLOB_ROOT}${projectId}/${kind}/${ownerId}/`;

/** The parts of a key `blobKey` made, or null for any other key. */
export function parseBlobKey(key: string): { projectId: string; kind: string; ownerId: string; name: string } | null {
  const m = /^p\/([^/]+)\/([^/]+)\/([^/]+)\/([^/]+)\.[a-z0-9]{12}\.json\.gz$/.exec(key);
  if (!m) return null;
  const [, projectId = "", kind = "", ownerId = "", name = ""] = m;
  return { projectId, kind, ownerId, name };
}

const SEGMENT = /^[A-Za-z0-9_-]{1,80}$/;
const NAME = /^[A-Za-z0-9_.-]{1,120}$/;

/**
 * Recently read values as their JSON text, keyed by their immutable key, bounded by size: a
 * transcript read twice in a row costs one R2 read. Text rather than the parsed value, so no reader
 * can change what the next one gets.
 */
const CACHE_BYTES = 32 * 1024 * 1024;
const cache = new LRUCache<string, string>({ maxSize: CACHE_BYTES, sizeCalculation: (text) => Math.max(1, text.length * 2) });

export interface BlobStore {
  /** Writes `value` as JSON under a key the caller made with `blobKey`; answers the stored bytes. */
  put(key: string, value: unknown): Promise<{ bytes: number }>;
  /** As `put`, for a value its caller has already serialised (to check its size, say): `json` is stored as it is. */
  putJson(key: string, json: string): Promise<{ bytes: number }>;
  /** The value under `key`, or null when there is none. */
  get<T>(key: string): Promise<T | null>;
  /** Removes the keys (missing ones are fine): R2 deletes up to 1,000 keys per call. */
  delete(keys: readonly string[]): Promise<void>;
}

export function blobStore(bucket: R2Bucket): BlobStore {
  const putJson = async (key: string, text: string) => {
    const body = await gzip(text);
    await bucket.put(key, body, { httpMetadata: { contentType: "application/json", contentEncoding: "gzip" } });
    cache.set(key, text);
    return { bytes: body.byteLength };
  };
  return {
    put: (key, value) => putJson(key, JSON.stringify(value)),
    putJson,
    async get<T>(key: string) {
      let text = cache.get(key);
      if (text === undefined) {
        const object = await bucket.get(key);
        if (!object) return null;
        text = await gunzip(await object.arrayBuffer());
        cache.set(key, text);
      }
      return JSON.parse(text) as T;
    },
    async delete(keys) {
      for (let i = 0; i < keys.length; i += DELETE_BATCH) {
        const batch = keys.slice(i, i + DELETE_BATCH);
        for (const k of batch) cache.delete(k);
        if (batch.length > 0) await bucket.delete(batch);
      }
    },
  };
}

const DELETE_BATCH = 1000;

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function gunzip(bytes: ArrayBuffer): Promise<string> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Response(stream).text();
}

/** For tests: forget every cached value, as a fresh isolate would. */
export function clearBlobCache(): void {
  cache.clear();
}
