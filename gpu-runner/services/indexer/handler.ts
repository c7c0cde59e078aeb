import { z } from "zod";
import {
  CATALOG_WRITE_MAX_CHUNKS,
  CatalogCutoverResultSchema,
  CatalogRollbackResultSchema,
  CHUNK_TYPE,
  SPARSE_ENGINE,
  type DenseIdentity,
  type IndexChunk,
  type IndexerResult,
} from "../../../contracts/catalog";
import type { EmbeddingEngine } from "../../../contracts/embeddings/interface";
import type { TranscriptDocument } from "../../../contracts/runner-protocol";
import type { indexStep } from "../../../contracts/services/indexer";
import type { StageOf } from "../../../contracts/services/types";
import type { Settings } from "../../../contracts/settings";
import { toStepError } from "../../../contracts/step-failure";
import { isCancelled } from "../../stage-reporter";
import { StepFailure } from "../../../contracts/step-failure";
import type { HandlerContext, StepHandler } from "../../handler";
import type { EngineEnv } from "../../engines/config";
import { createEmbeddingEngine } from "../../engines/embeddings/factory";
import { parseStepInput, parseStepSettings } from "../../step-input";
import { requireText, transcriptDetails } from "../shared/text-document";
import { chunkSegments, sparseTerms } from "./chunk";

/**
 * The indexer on the runner. For every transcript of the job, in order: `fetch_transcription`
 * (current segments, through the platform), `chunk`, `embed_sparse` (the terms BM25 will weigh; D1's
 * FTS5 builds the index from them as the chunks are written), `embed_dense` (the catalog's embedding
 * engine), `index` (`catalog.write`, as a new generation beside the live one). Then `cutover` makes
 * every new generation live and removes the previous ones. Nothing goes live until every transcript
 * is written, so a failure after the first write calls `rollback` (the run's chunks are removed) and
 * fails the job with `index_rollback`, while the previous index answers throughout.
 */
type Stage = StageOf<typeof indexStep>;

const InputSchema = z.object({ textSourceIds: z.array(z.string().min(1)).min(1) });
const WriteResultSchema = z.object({ written: z.number().int() });

/** Texts per embedding call: the backends' documented batch limits are at least this. */
const EMBED_BATCH = 32;

export interface IndexerHandlerDeps {
  createEngine?: (settings: Settings["catalog"], env: EngineEnv) => EmbeddingEngine;
  env?: EngineEnv;
}

interface Prepared {
  doc: TranscriptDocument;
  chunks: IndexChunk[];
}

export function createIndexerHandler(deps: IndexerHandlerDeps = {}): StepHandler<Stage> {
  const makeEngine =
    deps.createEngine ??
    ((s, env) => createEmbeddingEngine(s.embeddingEngine, env, { ...(s.embeddingModel ? { model: s.embeddingModel } : {}) }));
  return async (ctx) => {
    const { report, task } = ctx;
    const input = parseStepInput(InputSchema, task.input, "indexer input");
    const settings = parseStepSettings(task.settings, ["catalog"]).catalog;
    const engine = makeEngine(settings, deps.env ?? process.env);
    const dense: DenseIdentity = { engine: engine.engine, model: engine.model, dimensions: engine.dimensions };
    const written: Prepared[] = [];
    const writes = { started: false };
    try {
      for (const id of input.textSourceIds) written.push(await indexOne(ctx, id, engine, dense, settings, writes));
    } catch (err) {
      // A cancel is cleaned up by the Worker when the job ends (its leftovers go, live generations stay).
      if (isCancelled(err) || !writes.started) throw err;
      throw await rolledBack(ctx, input.textSourceIds, err);
    }
    const results: IndexerResult["indexedTranscriptions"] = [];
    try {
      await report.stage(
        "cutover",
        async () => {
          for (const { doc, chunks } of written) {
            const r = await ctx.platform.call(
              "catalog.cutover",
              {
                textSourceId: doc.textSourceId,
                dense,
                chunkCount: chunks.length,
                segmentCount: doc.segments.length,
                transcriptRevision: doc.revision,
                language: doc.language,
              },
              CatalogCutoverResultSchema,
            );
            results.push({ textSourceId: doc.textSourceId, segmentCount: doc.segments.length, indexedChunks: chunks.length, ...r });
          }
        },
        () => ({ transcripts: results.length, removedStaleChunks: results.reduce((n, r) => n + r.removedStaleChunks, 0) }),
      );
    } catch (err) {
      if (isCancelled(err)) throw err;
      throw await rolledBack(ctx, input.textSourceIds, err);
    }
    const result: IndexerResult = {
      denseEngine: dense.engine,
      denseModel: dense.model,
      dimensions: dense.dimensions,
      sparseEngine: SPARSE_ENGINE,
      chunkType: CHUNK_TYPE,
      indexedTranscriptions: results,
    };
    return result;
  };
}

async function indexOne(
  ctx: HandlerContext<Stage>,
  textSourceId: string,
  engine: EmbeddingEngine,
  dense: DenseIdentity,
  settings: Settings["catalog"],
  writes: { started: boolean },
): Promise<Prepared> {
  const { report, signal } = ctx;
  const doc = await report.stage(
    "fetch_transcription",
    async () => requireText(await ctx.platform.transcript(textSourceId)),
    transcriptDetails,
  );
  const chunks = await report.stage(
    "chunk",
    async () =>
      chunkSegments(doc.segments, {
        minSeconds: settings.chunkMinSeconds,
        maxSeconds: settings.chunkMaxSeconds,
        overlapSeconds: settings.chunkOverlapSeconds,
      }),
    (cs) => ({
      textSourceId,
      chunks: cs.length,
      meanSeconds: cs.length ? Math.round((cs.reduce((n, c) => n + c.end - c.start, 0) / cs.length) * 10) / 10 : 0,
      chunkType: CHUNK_TYPE,
    }),
  );
  await report.stage(
    "embed_sparse",
    async () => {
      const terms = chunks.map((c) => sparseTerms(c.text));
      return { tokens: terms.reduce((n, t) => n + t.length, 0), vocabulary: new Set(terms.flat()).size };
    },
    (t) => ({ textSourceId, engine: SPARSE_ENGINE, ...t, note: "BM25 weights come from D1's FTS5 index as the chunks are written" }),
  );
  const vectors = await report.stage(
    "embed_dense",
    async () => {
      const out: Float32Array[] = [];
      for (let i = 0; i < chunks.length; i += EMBED_BATCH)
        out.push(
          ...(await engine.embed(
            chunks.slice(i, i + EMBED_BATCH).map((c) => c.text),
            signal,
          )),
        );
      if (out.length !== chunks.length)
        throw new StepFailure(
          "processing_failed",
          `${engine.engine} (${engine.model}) returned ${out.length} vectors for ${chunks.length} chunks`,
          true,
        );
      return out;
    },
    (v) => ({ textSourceId, engine: dense.engine, model: dense.model, dimensions: dense.dimensions, vectors: v.length }),
  );
  await report.stage(
    "index",
    async () => {
      for (let i = 0; i < chunks.length; i += CATALOG_WRITE_MAX_CHUNKS) {
        const part = chunks.slice(i, i + CATALOG_WRITE_MAX_CHUNKS).map((c, j) => ({ ...c, vector: Array.from(vectors[i + j]!) }));
        writes.started = true;
        await ctx.platform.call("catalog.write", { textSourceId, dense, chunks: part }, WriteResultSchema);
      }
    },
    () => ({ textSourceId, chunks: chunks.length, collectionWrite: "new generation (not live until cutover)" }),
  );
  return { doc, chunks };
}

/** Removes what this run wrote and turns the failure into `index_rollback` (the previous index stays live). */
async function rolledBack(ctx: HandlerContext<Stage>, textSourceIds: string[], cause: unknown): Promise<StepFailure> {
  const { message } = toStepError(cause);
  await ctx.report.stage(
    "rollback",
    () => ctx.platform.call("catalog.rollback", { textSourceIds }, CatalogRollbackResultSchema),
    (r) => ({ removedChunks: r.removedChunks, cause: message }),
  );
  return new StepFailure("index_rollback", `indexing failed and was rolled back; the previous index still answers: ${message}`, false);
}

export const indexerHandler = createIndexerHandler();
