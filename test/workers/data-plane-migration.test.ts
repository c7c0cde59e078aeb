import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { collectionName } from "../../contracts/catalog";
import { bytesToVector } from "../../contracts/embeddings/vectors";
import { catalogObject } from "../../durable-objects/catalog/address";
import { migrateDataPlaneBatch } from "../../worker/maintenance/data-plane-migration";
import { admin, call } from "./helpers/api";
import { bindable, legacyAnswers, legacyRows, loadLegacyFixture } from "./helpers/legacy-fixture";

/**
 * Moving an upgraded deployment's data (worker/maintenance/data-plane-migration.ts) on the D1 rows
 * the previous version wrote (test/fixtures/data-plane-7b34c1b): every read answers what that version
 * answered, before the move (readers fall back to the old layout), after it, and after a repeat.
 */

const key = legacyAnswers.tenant.projectKey;
const reads = Object.entries(legacyAnswers.reads);

/**
 * Fields later versions added to these records, with what a record made before them answers: the
 * recorded fields must be unchanged, and nothing else may appear. Issue 24's speakers, diarization and
 * language confidence; issue 25's staleness: the recorded transcript is at revision 2 (one edit), its
 * translation, metadata, summary and dub were made from 2 (a dub from its translation's revision), its
 * files in the bucket still hold the transcription's revision 1.
 */
const ADDED_SINCE: Record<string, unknown> = {
  speakers: [],
  diarization: null,
  languageConfidence: null,
  redaction: null,
  redactedAudio: null,
  transcriptRevision: 2,
  currentRevision: 2,
  stale: false,
  outputKeysRevision: 1,
  outputKeysStale: true,
};

/** Where a record answers an added field otherwise: the clip generation noted no revision, so its staleness is unknown. */
const ADDED_SINCE_AT: Record<string, Record<string, unknown>> = Object.fromEntries(
  reads.filter(([path]) => path.startsWith("/v1/clip-generations/")).map(([path]) => [path, { transcriptRevision: null, stale: null }]),
);

async function expectReadsAsRecorded(): Promise<void> {
  for (const [path, recorded] of reads) {
    const res = await call<unknown>("GET", path, { key });
    expect(res.status, path).toBe(200);
    expectAsRecorded(res.body.data, recorded, path, { ...ADDED_SINCE, ...ADDED_SINCE_AT[path] });
  }
}

/**
 * A record answers its recorded fields unchanged, plus only the fields added since (`added`); a list
 * answers as many items as recorded, each by the same rule (list pages and list fields alike).
 */
function expectAsRecorded(answer: unknown, recorded: unknown, path: string, added: Record<string, unknown>): void {
  if (Array.isArray(answer) && Array.isArray(recorded)) {
    expect(answer.length, path).toBe(recorded.length);
    answer.forEach((item, i) => expectAsRecorded(item, recorded[i], `${path}[${i}]`, added));
    return;
  }
  if (Array.isArray(answer) || answer === null || typeof answer !== "object" || recorded === null || typeof recorded !== "object") {
    expect(answer, path).toEqual(recorded);
    return;
  }
  const was = recorded as Record<string, unknown>;
  const entries = Object.entries(answer as Record<string, unknown>);
  const extra = Object.fromEntries(entries.filter(([k]) => !(k in was)));
  expect(extra, path).toEqual(Object.fromEntries(Object.keys(extra).map((k) => [k, k in added ? added[k] : "not an added field"])));
  for (const [k, v] of entries.filter(([k]) => k in was)) {
    if (Array.isArray(v)) expectAsRecorded(v, was[k], `${path}.${k}`, added);
    else expect(v, `${path}.${k}`).toEqual(was[k]);
  }
}

/** Rows of the previous version's bulk columns and tables that still hold data. */
async function legacyBulkRows(): Promise<Record<string, number>> {
  const count = async (sql: string) => (await env.DB.prepare(sql).first<{ n: number }>())?.n ?? 0;
  return {
    transcriptLayers: await count("SELECT count(*) AS n FROM transcript_layers"),
    clipResults: await count("SELECT count(*) AS n FROM clip_generations WHERE result IS NOT NULL"),
    dubbingResults: await count("SELECT count(*) AS n FROM dubbings WHERE result IS NOT NULL"),
    summaryResults: await count("SELECT count(*) AS n FROM summarizations WHERE result IS NOT NULL"),
    metadataRecords: await count("SELECT count(*) AS n FROM transcripts WHERE metadata IS NOT NULL"),
    thumbnailSets: await count("SELECT count(*) AS n FROM transcripts WHERE thumbnails != '[]'"),
    catalogEntries: await count("SELECT count(*) AS n FROM catalog_entries"),
    catalogChunks: await count("SELECT count(*) AS n FROM catalog_chunks"),
    catalogVectors: await count("SELECT count(*) AS n FROM catalog_vectors"),
  };
}

const NONE_LEFT = {
  transcriptLayers: 0,
  clipResults: 0,
  dubbingResults: 0,
  summaryResults: 0,
  metadataRecords: 0,
  thumbnailSets: 0,
  catalogEntries: 0,
  catalogChunks: 0,
  catalogVectors: 0,
};

const [legacyEntry] = legacyRows["catalog_entries"] ?? [];
const [legacyChunk] = legacyRows["catalog_chunks"] ?? [];
const [legacyVector] = legacyRows["catalog_vectors"] ?? [];
const projectId = String(legacyEntry?.["project_id"]);
const catalog = () => catalogObject(env.CATALOG, collectionName(projectId));

/** The recorded chunk as a search result shows it. */
const recordedChunk = {
  chunkId: legacyChunk?.["chunk_id"],
  textSourceId: legacyChunk?.["text_source_id"],
  start: legacyChunk?.["start"],
  end: legacyChunk?.["end"],
  segmentIds: JSON.parse(String(legacyChunk?.["segment_ids"])),
};

async function migrateUntilDone(limit?: number): Promise<number> {
  for (let batches = 1; batches < 50; batches++) if ((await migrateDataPlaneBatch(env, limit)).done) return batches;
  throw new Error("the migration did not finish in 50 batches");
}

beforeEach(loadLegacyFixture);

describe("moving an upgraded deployment's data", () => {
  it("the fixture holds the previous version's bulk data in D1", async () => {
    const legacy = await legacyBulkRows();
    for (const [what, n] of Object.entries(legacy)) expect(n, what).toBeGreaterThan(0);
  });

  it("before the move, every read answers what the previous version answered", async () => {
    await expectReadsAsRecorded();
  });

  it("moves every bulk value out of D1, and every read still answers the same", async () => {
    await migrateUntilDone();
    expect(await legacyBulkRows()).toEqual(NONE_LEFT);
    await expectReadsAsRecorded();
  });

  it("resumes batch by batch: one owner per phase per call reaches the same end", async () => {
    await migrateUntilDone(1);
    expect(await legacyBulkRows()).toEqual(NONE_LEFT);
    await expectReadsAsRecorded();
  });

  it("is idempotent: run again, it moves nothing and answers done", async () => {
    await migrateUntilDone();
    const again = await migrateDataPlaneBatch(env);
    expect(again.done).toBe(true);
    expect(Object.values(again.phases).every((p) => p.moved === 0)).toBe(true);
    await expectReadsAsRecorded();
  });

  it("moves the catalog into the project's object: a sparse search finds the chunk the previous version indexed", async () => {
    await migrateUntilDone();
    const word =
      String(legacyChunk?.["text"])
        .split(" ")
        .find((w) => w.length > 6) ?? "";
    const res = await call<{ results: Array<Record<string, unknown>> }>("POST", "/v1/catalog/search", {
      key,
      body: { query: word, mode: "sparse", limit: 5 },
    });
    expect(res.status).toBe(200);
    expect(
      res.body.data.results.map((r) => ({
        chunkId: r["chunkId"],
        textSourceId: r["textSourceId"],
        start: r["start"],
        end: r["end"],
        segmentIds: r["segmentIds"],
      })),
    ).toEqual([recordedChunk]);
    expect(
      (await catalog().entries()).map((e) => ({ textSourceId: e.textSourceId, generation: e.generation, denseModel: e.denseModel })),
    ).toEqual([
      { textSourceId: legacyEntry?.["text_source_id"], generation: legacyEntry?.["generation"], denseModel: legacyEntry?.["dense_model"] },
    ]);
  });

  it("moves the chunk's vector intact: its own nearest neighbour, at cosine 1", async () => {
    await migrateUntilDone();
    const bytes = bindable(legacyVector?.["vector"]);
    const vector = bytesToVector(bytes instanceof ArrayBuffer ? bytes : new ArrayBuffer(0));
    const [nearest] = await catalog().queryVectors({ vector, model: String(legacyVector?.["model"]), topK: 1 });
    expect(nearest?.score).toBeCloseTo(1, 5);
  });

  it("keeps a catalog entry indexed again since the upgrade: the newer index wins", async () => {
    const object = catalog();
    const textSourceId = String(legacyEntry?.["text_source_id"]);
    await object.writeChunks(textSourceId, "job_newer.0", [{ position: 0, start: 0, end: 1, segmentIds: [0], text: "a newer index" }]);
    await object.cutover(textSourceId, "job_newer.0", {
      jobId: "job_newer",
      chunkCount: 1,
      segmentCount: 1,
      transcriptRevision: 3,
      language: "en",
      denseEngine: "local-wink",
      denseModel: String(legacyEntry?.["dense_model"]),
      dimensions: 100,
      sparseEngine: "d1-fts5-bm25",
      indexedAt: new Date().toISOString(),
    });
    await migrateUntilDone();
    expect((await object.entries()).map((e) => e.generation)).toEqual(["job_newer.0"]);
    expect((await legacyBulkRows()).catalogChunks).toBe(0);
  });

  it("is the operator's route, behind the admin secret", async () => {
    const res = await admin<{ done: boolean }>("POST", "/maintenance/data-plane-migration", { limit: 200 });
    expect(res.status).toBe(200);
    expect(res.body.data.done).toBe(true);
    expect((await call("POST", "/admin/v1/maintenance/data-plane-migration", { key, body: {} })).status).toBe(401);
  });
});
