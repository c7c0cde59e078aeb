import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../contracts/ids";
import type { Segment } from "../../contracts/transcript";
import { getDb } from "../../worker/db/client";
import { transcriptLayers, transcripts } from "../../worker/db/schema";
import worker from "../../worker/index";
import { SWEEP_CURSOR_KEY } from "../../worker/maintenance/blob-sweep-run";
import { blobKey, blobStore, clearBlobCache } from "../../worker/storage/blobs";
import { moveLegacyLayers } from "../../worker/transcripts/legacy-layers";
import { readLayer, transcriptPrefix, TRANSCRIPTS_KIND } from "../../worker/transcripts/layers";
import { currentGlossary, replaceSegments } from "../../worker/transcripts/store";
import { call } from "./helpers/api";
import { createTenant, type Tenant } from "./helpers/tenant";
import { completedTranscript, pendingTranscriptRow, saveTranscriptRow, translationSaveBody } from "./helpers/transcripts";
import { createJob } from "./helpers/understanding";
import { fakeRunner, waitForStatus } from "./helpers/jobs";
import type { TranslationSource } from "../../contracts/services/translation";

/**
 * Transcript layers live in the BLOBS bucket (worker/transcripts/layers.ts): the transcripts row holds
 * pointers, every write puts its object before the pointer, a replaced or losing object is removed,
 * the previous version's D1 rows still read and move over, and the sweep removes what no row names.
 */

const db = () => getDb(env.DB);
const store = blobStore(env.BLOBS);
const HOUR = 3_600_000;

let t: Tenant;
beforeAll(async () => {
  t = await createTenant();
});

const segmentsOf = (...texts: string[]): Segment[] => texts.map((text, id) => ({ id, start: id * 2, end: id * 2 + 2, text }));

const rowOf = async (id: string) => {
  const row = await db().select().from(transcripts).where(eq(transcripts.id, id)).get();
  if (!row) throw new Error(`no transcript ${id}`);
  return row;
};

/** The keys stored under the transcript's prefix. */
async function storedKeys(id: string): Promise<string[]> {
  const listed = await env.BLOBS.list({ prefix: transcriptPrefix(t.projectId, id), limit: 1000 });
  return listed.objects.map((o) => o.key).sort();
}

const legacyRowCount = async (id: string) =>
  (await db().select().from(transcriptLayers).where(eq(transcriptLayers.transcriptId, id)).all()).length;

/** A pending transcript row of the tenant's project, as POST /v1/jobs leaves it. */
const pendingTranscript = () => pendingTranscriptRow(t.projectId);

/** A transcript saved as the transcription sink saves it, through `blobs`. */
async function savedTranscript(blobs = store, segments = segmentsOf("first words", "second words")): Promise<string> {
  const id = await pendingTranscript();
  await savedTranscriptInto(id, segments, blobs);
  return id;
}

/** The bucket with `put` failing, as an R2 outage would. */
const failingPuts = (): R2Bucket =>
  new Proxy(env.BLOBS, {
    get(target, prop) {
      if (prop === "put") return () => Promise.reject(new Error("injected: R2 put failed"));
      const value: unknown = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });

/** The bucket, counting its `get` calls. */
function countingGets(): { bucket: R2Bucket; gets: () => number } {
  let gets = 0;
  const bucket = new Proxy(env.BLOBS, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (prop === "get") gets++;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { bucket, gets: () => gets };
}

/** One run of the Worker's scheduled handler (the Cron Trigger), at `at`, from the start of the bucket. */
async function scheduledSweep(at: Date): Promise<void> {
  await env.BLOBS.delete(SWEEP_CURSOR_KEY);
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: at, cron: "*/15 * * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);
}

describe("where a transcript's layers live", () => {
  it("a completed transcript's layers are objects under its project's prefix; D1 holds only their keys", async () => {
    const { textSourceId } = await completedTranscript(t, 3);
    const row = await rowOf(textSourceId);
    expect(Object.keys(row.layers ?? {}).sort()).toEqual(["glossary", "raw", "segments", "visual"]);
    expect(Object.values(row.layers ?? {}).sort()).toEqual(await storedKeys(textSourceId));
    expect(await legacyRowCount(textSourceId)).toBe(0);
    clearBlobCache();
    expect(await readLayer<Segment[]>(db(), store, row, "raw")).toHaveLength(3);
  });

  it("a layer over the documented limit is refused before anything is written", async () => {
    const id = await pendingTranscript();
    const huge = segmentsOf("x".repeat(8 * 1024 * 1024));
    await expect(savedTranscriptInto(id, huge)).rejects.toThrow(/limit is/);
    expect(await storedKeys(id)).toEqual([]);
    expect((await rowOf(id)).status).toBe("pending");
  });

  it("a repeated save points at new objects and removes the ones it replaced", async () => {
    const id = await savedTranscript();
    const first = (await rowOf(id)).layers ?? {};
    await savedTranscriptInto(id, segmentsOf("saved again"));
    const second = (await rowOf(id)).layers ?? {};
    expect(Object.values(second).some((k) => Object.values(first).includes(k))).toBe(false);
    expect(await storedKeys(id)).toEqual(Object.values(second).sort());
  });
});

/** Saves the transcription of an existing pending row. */
const savedTranscriptInto = (id: string, segments: Segment[], blobs = store) => saveTranscriptRow(t.projectId, id, segments, blobs);

/** A translation of the transcript into `targetLanguage`, the test playing the runner: every source segment's text becomes `prefix` + it. */
async function translated(textSourceId: string, targetLanguage: string, prefix: string): Promise<void> {
  const job = await createJob(t, "translation", { textSourceId, targetLanguage });
  const task = await fakeRunner.leaseWhenReady(job.jobId, ["translation"]);
  const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
  const save = translationSaveBody(
    source,
    job,
    source.segments.map((seg) => `${prefix}${seg.text}`),
  );
  expect((await fakeRunner.call(task, "translation.save", save)).status).toBe(200);
  const summary = {
    translationId: String(job.input["translationId"]),
    textSourceId,
    sourceLanguage: save.sourceLanguage,
    targetLanguage: save.targetLanguage,
    languageKey: String(job.input["languageKey"]),
    sourceLayer: source.sourceLayer,
    segmentCount: source.segments.length,
    durationSec: source.durationSec,
    translationBackend: save.translationBackend,
    model: save.model,
  };
  expect((await fakeRunner.complete(task, summary)).status).toBe(200);
  await waitForStatus(t, job.jobId, "completed");
}

describe("translation layers", () => {
  it("a translation's segments are an object the transcript points at; a later one into the same language replaces it", async () => {
    const { textSourceId } = await completedTranscript(t, ["good morning", "good night"]);
    await translated(textSourceId, "es", "[1] ");
    const first = (await rowOf(textSourceId)).layers?.["translation.es"];
    await translated(textSourceId, "es", "[2] ");
    const row = await rowOf(textSourceId);
    const second = row.layers?.["translation.es"];
    expect(second).toBeDefined();
    expect(second).not.toBe(first);
    expect(await storedKeys(textSourceId)).toEqual(Object.values(row.layers ?? {}).sort());
    expect(await legacyRowCount(textSourceId)).toBe(0);
    clearBlobCache();
    expect((await readLayer<Segment[]>(db(), store, row, "translation.es"))?.map((seg) => seg.text)).toEqual([
      "[2] good morning",
      "[2] good night",
    ]);
  });
});

describe("object before pointer", () => {
  it("a save whose object write fails leaves the transcript row as it was", async () => {
    const id = await pendingTranscript();
    const before = await rowOf(id);
    await expect(savedTranscriptInto(id, segmentsOf("never stored"), blobStore(failingPuts()))).rejects.toThrow(/injected/);
    expect(await rowOf(id)).toEqual(before);
  });

  it("an edit whose object write fails leaves the revision and the pointer as they were", async () => {
    const id = await savedTranscript();
    const before = await rowOf(id);
    await expect(replaceSegments(db(), blobStore(failingPuts()), before, 1, segmentsOf("lost", "edit"))).rejects.toThrow(/injected/);
    expect(await rowOf(id)).toEqual(before);
  });
});

describe("revision-checked edits", () => {
  it("a winning edit moves the pointer to its object and removes the one it replaced", async () => {
    const id = await savedTranscript();
    const before = await rowOf(id);
    expect(await replaceSegments(db(), store, before, 1, segmentsOf("edited", "words"))).toBe(2);
    const after = await rowOf(id);
    expect(after.layers?.["segments"]).not.toBe(before.layers?.["segments"]);
    expect(await storedKeys(id)).toEqual(Object.values(after.layers ?? {}).sort());
  });

  it("a losing edit leaves the pointer unchanged and no object that nothing points at", async () => {
    const id = await savedTranscript();
    const atRevision1 = await rowOf(id);
    await replaceSegments(db(), store, atRevision1, 1, segmentsOf("winner", "edit"));
    const won = await rowOf(id);
    expect(await replaceSegments(db(), store, atRevision1, 1, segmentsOf("loser", "edit"))).toBeNull();
    expect(await rowOf(id)).toEqual(won);
    expect(await storedKeys(id)).toEqual(Object.values(won.layers ?? {}).sort());
    expect((await readLayer<Segment[]>(db(), store, won, "segments"))?.[0]?.text).toBe("winner");
  });

  it("a reader holding the pointer an edit replaced reads the edit's layer, not nothing", async () => {
    const id = await savedTranscript();
    const stale = await rowOf(id);
    await replaceSegments(db(), store, stale, 1, segmentsOf("after", "the edit"));
    clearBlobCache();
    expect((await readLayer<Segment[]>(db(), store, stale, "segments"))?.[0]?.text).toBe("after");
  });
});

describe("the in-isolate cache", () => {
  it("a second read of a layer makes no R2 call", async () => {
    const id = await savedTranscript();
    const row = await rowOf(id);
    clearBlobCache();
    const counted = countingGets();
    const blobs = blobStore(counted.bucket);
    const first = await readLayer<Segment[]>(db(), blobs, row, "segments");
    const second = await readLayer<Segment[]>(db(), blobs, row, "segments");
    expect(second).toEqual(first);
    expect(counted.gets()).toBe(1);
  });
});

describe("transcripts written by the previous version (layers in D1)", () => {
  /** A completed transcript as the previous version stored it: no pointers, layers as JSON parts in `transcript_layers`. */
  async function legacyTranscript(): Promise<string> {
    const id = newId("transcript");
    const now = new Date().toISOString();
    const segments = segmentsOf("legacy words", "stored in D1");
    const { stamp } = await currentGlossary(db(), t.projectId);
    await db()
      .insert(transcripts)
      .values({
        id,
        projectId: t.projectId,
        jobId: `job_${id}`,
        status: "completed",
        language: "en",
        durationSec: 4,
        engine: "test",
        model: "test",
        revision: 1,
        segmentCount: segments.length,
        glossaryStamp: stamp,
        createdAt: now,
        updatedAt: now,
      });
    const json = JSON.stringify(segments);
    // Split in two parts, as the previous version split a long layer.
    const parts = [json.slice(0, 20), json.slice(20)];
    for (const layer of ["raw", "glossary", "segments"] as const)
      await db()
        .insert(transcriptLayers)
        .values(parts.map((data, part) => ({ transcriptId: id, layer, part, data })));
    await db().insert(transcriptLayers).values({ transcriptId: id, layer: "visual", part: 0, data: "[]" });
    return id;
  }

  const getTranscript = (id: string) =>
    call<{ segments: Array<{ text: string }>; raw: unknown[]; glossary: unknown[]; visualChunks: unknown[] }>(
      "GET",
      `/v1/transcriptions/${id}`,
      { key: t.projectKey },
    );

  it("a transcript without pointers reads its layers from the old D1 rows", async () => {
    const id = await legacyTranscript();
    const res = await getTranscript(id);
    expect(res.status).toBe(200);
    expect(res.body.data.segments.map((s) => s.text)).toEqual(["legacy words", "stored in D1"]);
    expect(res.body.data.raw).toHaveLength(2);
    expect(res.body.data.glossary).toHaveLength(2);
    expect(res.body.data.visualChunks).toEqual([]);
  });

  it("moveLegacyLayers moves them into the bucket and clears the rows; the transcript reads the same", async () => {
    const id = await legacyTranscript();
    const before = (await getTranscript(id)).body.data;
    const { moved } = await moveLegacyLayers(db(), store, id);
    expect(moved.sort()).toEqual(["glossary", "raw", "segments", "visual"]);
    const row = await rowOf(id);
    expect(Object.values(row.layers ?? {}).sort()).toEqual(await storedKeys(id));
    expect(await legacyRowCount(id)).toBe(0);
    clearBlobCache();
    expect((await getTranscript(id)).body.data).toEqual(before);
  });

  it("moveLegacyLayers run again moves nothing and changes nothing", async () => {
    const id = await legacyTranscript();
    await moveLegacyLayers(db(), store, id);
    const row = await rowOf(id);
    expect(await moveLegacyLayers(db(), store, id)).toEqual({ moved: [], deletedRows: 0 });
    expect(await rowOf(id)).toEqual(row);
    expect(await storedKeys(id)).toEqual(Object.values(row.layers ?? {}).sort());
  });

  it("a layer edited since (it has a pointer) keeps it: moveLegacyLayers moves only the others", async () => {
    const id = await legacyTranscript();
    await replaceSegments(db(), store, await rowOf(id), 1, segmentsOf("edited after", "the upgrade"));
    const edited = (await rowOf(id)).layers?.["segments"];
    const { moved } = await moveLegacyLayers(db(), store, id);
    expect(moved.sort()).toEqual(["glossary", "raw", "visual"]);
    const row = await rowOf(id);
    expect(row.layers?.["segments"]).toBe(edited);
    expect((await getTranscript(id)).body.data.segments.map((s) => s.text)).toEqual(["edited after", "the upgrade"]);
  });
});

describe("the orphan sweep (the scheduled handler)", () => {
  it("removes a layer object no transcript points at and keeps every live one", async () => {
    const id = await savedTranscript();
    const live = Object.values((await rowOf(id)).layers ?? {});
    const orphan = blobKey(t.projectId, TRANSCRIPTS_KIND, id, "segments");
    await store.put(orphan, segmentsOf("written, never pointed at"));
    await scheduledSweep(new Date(Date.now() + 2 * HOUR));
    expect(await storedKeys(id)).toEqual([...live].sort());
  });

  it("keeps an unreferenced object younger than the grace period: its pointer may be on its way", async () => {
    const id = await savedTranscript();
    const fresh = blobKey(t.projectId, TRANSCRIPTS_KIND, id, "segments");
    await store.put(fresh, segmentsOf("pointer on its way"));
    await scheduledSweep(new Date());
    expect(await storedKeys(id)).toContain(fresh);
  });

  it("persists where it stopped, so the next run resumes (null once the bucket is walked)", async () => {
    await savedTranscript();
    await scheduledSweep(new Date(Date.now() + 2 * HOUR));
    const state = await env.BLOBS.get(SWEEP_CURSOR_KEY);
    expect(await state?.json()).toMatchObject({ cursor: null });
  });
});
