import { afterEach, describe, expect, it } from "vitest";
import type { CatalogWrite } from "../../../contracts/catalog";
import type { EmbeddingEngine } from "../../../contracts/embeddings/interface";
import { INDEXER_STAGES, IndexerStoredSchema } from "../../../contracts/services/indexer";
import { StepFailure } from "../../../contracts/step-failure";
import { createIndexerHandler } from "../../../gpu-runner/services/indexer/handler";
import { FakePlatform, transcriptDoc } from "../../support/fake-platform";
import { makeHandlerContext, type TestContext } from "../../support/handler-context";
import { rejectionOf } from "../../support/rejection";

/**
 * The indexer's runner step against a fake platform: stages per transcript, chunks written as a new
 * generation, one cutover after every transcript is written, and on a failure after the first write
 * a rollback and `index_rollback`.
 */

/** Deterministic 4-dimensional vectors: enough to check they travel with their chunks. */
const fakeEngine: EmbeddingEngine = {
  engine: "fake",
  model: "fake-4",
  dimensions: 4,
  embed: async (texts) => texts.map((t) => Float32Array.from([t.length, 1, 0, 0].map((x, _i, a) => x / Math.hypot(...a)))),
};

const DOCS = {
  txt_a: transcriptDoc("txt_a", ["First sentence.", "Second sentence.", "Third sentence.", "Fourth sentence."], 20),
  txt_b: transcriptDoc("txt_b", ["Another talk.", "It goes on."], 20),
};

let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

function platform(): FakePlatform {
  const p = new FakePlatform(DOCS);
  p.answers = {
    "catalog.write": (b) => ({ written: (b as CatalogWrite).chunks.length }),
    "catalog.cutover": () => ({ removedStaleChunks: 2, reindexed: true }),
    "catalog.rollback": () => ({ removedChunks: 3 }),
  };
  return p;
}

async function run(p: FakePlatform, ids: string[]) {
  const c = await makeHandlerContext({
    input: { textSourceIds: ids },
    storage: null,
    platform: p,
    settings: { catalog: { embeddingEngine: "openai-compatible" } },
    step: { service: "indexer", name: "index", executor: "runner", handler: "indexer", stages: [...INDEXER_STAGES], params: {} },
    stored: IndexerStoredSchema,
  });
  ctx = c;
  return createIndexerHandler({ createEngine: () => fakeEngine })(c);
}

describe("indexer handler", () => {
  it("runs fetch, chunk, sparse, dense and index per transcript, then one cutover", async () => {
    const p = platform();
    await run(p, ["txt_a", "txt_b"]);
    const perTranscript = ["fetch_transcription", "chunk", "embed_sparse", "embed_dense", "index"].flatMap((s) => [
      `${s}:started`,
      `${s}:completed`,
    ]);
    expect(ctx!.report.timeline()).toEqual([...perTranscript, ...perTranscript, "cutover:started", "cutover:completed"]);
  });

  it("writes chunks with their vectors and the engine's identity, and cuts over only after every write", async () => {
    const p = platform();
    await run(p, ["txt_a", "txt_b"]);
    expect(p.calls.map((c) => c.name)).toEqual(["catalog.write", "catalog.write", "catalog.cutover", "catalog.cutover"]);
    const write = p.callsOf("catalog.write")[0] as CatalogWrite;
    expect(write.dense).toEqual({ engine: "fake", model: "fake-4", dimensions: 4 });
    expect(write.chunks.every((c) => c.vector.length === 4)).toBe(true);
  });

  it("returns one entry per transcript with the cutover's counts", async () => {
    const result = await run(platform(), ["txt_a", "txt_b"]);
    expect(result).toMatchObject({
      denseEngine: "fake",
      denseModel: "fake-4",
      sparseEngine: "catalog-bm25",
      chunkType: "segment_window",
      indexedTranscriptions: [
        { textSourceId: "txt_a", segmentCount: 4, removedStaleChunks: 2, reindexed: true },
        { textSourceId: "txt_b", segmentCount: 2, removedStaleChunks: 2, reindexed: true },
      ],
    });
  });

  it("a failure after the first write rolls back and fails with index_rollback, not retryable", async () => {
    const p = platform().failOn("catalog.write", 2);
    const err = await rejectionOf(run(p, ["txt_a", "txt_b"]), StepFailure);
    expect(err).toBeInstanceOf(StepFailure);
    expect(err).toMatchObject({ code: "index_rollback", retryable: false });
    expect((err as Error).message).toContain("catalog.write failed");
    expect(p.callsOf("catalog.rollback")).toEqual([{ textSourceIds: ["txt_a", "txt_b"] }]);
    expect(p.callsOf("catalog.cutover")).toEqual([]);
    expect(ctx!.report.timeline().slice(-2)).toEqual(["rollback:started", "rollback:completed"]);
  });

  it("an embedding failure after another transcript was written rolls back too", async () => {
    let calls = 0;
    const flaky: EmbeddingEngine = {
      ...fakeEngine,
      embed: async (texts, signal) => {
        if (++calls > 1) throw new StepFailure("processing_failed", "fake (fake-4): HTTP 503", true);
        return fakeEngine.embed(texts, signal);
      },
    };
    const p = platform();
    const c = await makeHandlerContext({
      input: { textSourceIds: ["txt_a", "txt_b"] },
      storage: null,
      platform: p,
      step: { service: "indexer", name: "index", executor: "runner", handler: "indexer", stages: [...INDEXER_STAGES], params: {} },
      stored: IndexerStoredSchema,
    });
    ctx = c;
    const err = await rejectionOf(createIndexerHandler({ createEngine: () => flaky })(c), StepFailure);
    expect(err).toMatchObject({ code: "index_rollback" });
    expect(c.report.timeline()).toContain("embed_dense:failed");
    expect(p.callsOf("catalog.rollback")).toHaveLength(1);
  });

  it("a failed cutover rolls back too", async () => {
    const p = platform().failOn("catalog.cutover", 1);
    expect(await rejectionOf(run(p, ["txt_a"]), StepFailure)).toMatchObject({ code: "index_rollback" });
    expect(p.callsOf("catalog.rollback")).toHaveLength(1);
  });

  it("a failure before anything was written keeps its own code and needs no rollback", async () => {
    const p = platform();
    expect(await rejectionOf(run(p, ["txt_missing"]), StepFailure)).toMatchObject({ code: "source_not_found", retryable: false });
    expect(p.calls).toEqual([]);
  });

  it("a transcript without words fails with no_segments", async () => {
    const p = new FakePlatform({ txt_e: transcriptDoc("txt_e", ["", "  "]) });
    expect(await rejectionOf(run(p, ["txt_e"]), StepFailure)).toMatchObject({ code: "no_segments" });
  });
});
