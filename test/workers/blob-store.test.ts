import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { sweepOrphans, type ReferencedKeys } from "../../worker/storage/blob-sweep";
import { blobKey, blobStore, clearBlobCache, ownerPrefix, parseBlobKey } from "../../worker/storage/blobs";

/**
 * The platform's object storage (worker/storage/blobs.ts) on the R2 that miniflare emulates, and
 * the orphan sweep (worker/storage/blob-sweep.ts) over it.
 */

const store = blobStore(env.BLOBS);
const HOUR = 3_600_000;

async function emptyBucket(): Promise<void> {
  for (;;) {
    const page = await env.BLOBS.list({ limit: 1000 });
    if (page.objects.length === 0) return;
    await env.BLOBS.delete(page.objects.map((o) => o.key));
  }
}

/** Stored keys in listing order. */
async function storedKeys(): Promise<string[]> {
  return (await env.BLOBS.list({ limit: 1000 })).objects.map((o) => o.key);
}

/** An owner kind whose rows point at exactly `referenced`. */
const pointingAt =
  (referenced: readonly string[]): ReferencedKeys =>
  async (keys) =>
    new Set(keys.filter((k) => referenced.includes(k)));

beforeEach(async () => {
  await emptyBucket();
  clearBlobCache();
});

describe("blob keys", () => {
  it("give every write of the same value a new key, so a key names one immutable value", () => {
    const a = blobKey("prj_1", "transcripts", "txt_1", "segments");
    const b = blobKey("prj_1", "transcripts", "txt_1", "segments");
    expect(a).not.toBe(b);
    expect(a.startsWith(ownerPrefix("prj_1", "transcripts", "txt_1"))).toBe(true);
  });

  it("parse back into their project, kind, owner and name", () => {
    const key = blobKey("prj_1", "transcripts", "txt_1", "translation.pt-BR");
    expect(parseBlobKey(key)).toEqual({ projectId: "prj_1", kind: "transcripts", ownerId: "txt_1", name: "translation.pt-BR" });
    expect(parseBlobKey("p/prj_1/transcripts/txt_1/segments.json")).toBeNull();
  });

  it.each([
    ["a slash in the owner", () => blobKey("prj_1", "transcripts", "txt/../x", "segments")],
    ["a dot segment in the project", () => blobKey("..", "transcripts", "txt_1", "segments")],
    ["a slash in the name", () => blobKey("prj_1", "transcripts", "txt_1", "a/b")],
    ["an empty kind", () => blobKey("prj_1", "", "txt_1", "segments")],
  ])("refuse %s", (_what, make) => {
    expect(make).toThrow(/not a plain name/);
  });
});

describe("the blob store", () => {
  it("reads back the value it wrote", async () => {
    const key = blobKey("prj_1", "transcripts", "txt_1", "raw");
    const value = [{ id: 0, start: 0, end: 1.5, text: "héllo", words: [{ word: "héllo", start: 0, end: 1.5 }] }];
    await store.put(key, value);
    clearBlobCache();
    expect(await store.get(key)).toEqual(value);
  });

  it("stores JSON gzip-compressed", async () => {
    const key = blobKey("prj_1", "transcripts", "txt_1", "raw");
    const value = Array.from({ length: 500 }, (_, i) => ({ id: i, start: i, end: i + 1, text: "the same words again and again" }));
    const { bytes } = await store.put(key, value);
    expect(bytes).toBeLessThan(JSON.stringify(value).length / 4);
    const head = await env.BLOBS.head(key);
    expect(head?.size).toBe(bytes);
    expect(head?.httpMetadata?.contentEncoding).toBe("gzip");
  });

  it("answers null for a key it never wrote", async () => {
    expect(await store.get(blobKey("prj_1", "transcripts", "txt_1", "raw"))).toBeNull();
  });

  it("hands each reader its own copy, so one reader's change never reaches the next", async () => {
    const key = blobKey("prj_1", "transcripts", "txt_1", "raw");
    await store.put(key, [{ text: "a" }]);
    const first = await store.get<Array<{ text: string }>>(key);
    first![0]!.text = "changed";
    expect(await store.get(key)).toEqual([{ text: "a" }]);
  });

  it("deletes what it is asked to, and a missing key is fine", async () => {
    const kept = blobKey("prj_1", "transcripts", "txt_1", "raw");
    const gone = blobKey("prj_1", "transcripts", "txt_1", "glossary");
    await store.put(kept, 1);
    await store.put(gone, 2);
    await store.delete([gone, blobKey("prj_1", "transcripts", "txt_1", "never")]);
    expect(await store.get(gone)).toBeNull();
    expect(await storedKeys()).toEqual([kept]);
  });
});

describe("the orphan sweep", () => {
  const later = () => new Date(Date.now() + 2 * HOUR);

  it("removes objects no row points at and keeps the ones a row does", async () => {
    const live = blobKey("prj_1", "transcripts", "txt_1", "segments");
    const orphan = blobKey("prj_1", "transcripts", "txt_1", "segments");
    await store.put(live, 1);
    await store.put(orphan, 2);
    const result = await sweepOrphans(
      env.BLOBS,
      store,
      { transcripts: pointingAt([live]) },
      { now: later(), graceMs: HOUR, maxObjects: 100 },
    );
    expect(result.deleted).toEqual([orphan]);
    expect(await storedKeys()).toEqual([live]);
  });

  it("keeps an object younger than the grace period, whose pointer may be on its way", async () => {
    const fresh = blobKey("prj_1", "transcripts", "txt_1", "segments");
    await store.put(fresh, 1);
    const result = await sweepOrphans(
      env.BLOBS,
      store,
      { transcripts: pointingAt([]) },
      { now: new Date(), graceMs: HOUR, maxObjects: 100 },
    );
    expect(result.deleted).toEqual([]);
    expect(await storedKeys()).toEqual([fresh]);
  });

  it("keeps objects of a kind no owner answers for, and keys the store did not make", async () => {
    const unknownKind = blobKey("prj_1", "someday", "x_1", "data");
    await store.put(unknownKind, 1);
    await env.BLOBS.put("p/prj_1/notes.txt", "hand-made");
    await sweepOrphans(env.BLOBS, store, { transcripts: pointingAt([]) }, { now: later(), graceMs: HOUR, maxObjects: 100 });
    expect((await storedKeys()).sort()).toEqual([unknownKind, "p/prj_1/notes.txt"].sort());
  });

  it("lists at most maxObjects per run and resumes from its cursor", async () => {
    for (let i = 0; i < 5; i++) await store.put(blobKey("prj_1", "transcripts", `txt_${i}`, "raw"), i);
    const owners = { transcripts: pointingAt([]) };
    const opts = { now: later(), graceMs: HOUR, maxObjects: 3 };
    const first = await sweepOrphans(env.BLOBS, store, owners, opts);
    expect(first.scanned).toBe(3);
    expect(first.cursor).not.toBeNull();
    const second = await sweepOrphans(env.BLOBS, store, owners, { ...opts, cursor: first.cursor ?? undefined });
    expect(second.cursor).toBeNull();
    expect(first.deleted.length + second.deleted.length).toBe(5);
    expect(await storedKeys()).toEqual([]);
  });

  it("is idempotent: a second run over the same objects deletes nothing more", async () => {
    const live = blobKey("prj_1", "transcripts", "txt_1", "segments");
    await store.put(live, 1);
    await store.put(blobKey("prj_1", "transcripts", "txt_1", "segments"), 2);
    const owners = { transcripts: pointingAt([live]) };
    const opts = { now: later(), graceMs: HOUR, maxObjects: 100 };
    await sweepOrphans(env.BLOBS, store, owners, opts);
    const again = await sweepOrphans(env.BLOBS, store, owners, opts);
    expect(again.deleted).toEqual([]);
    expect(await storedKeys()).toEqual([live]);
  });
});
