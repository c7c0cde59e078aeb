import { SPARSE_ENGINE } from "../../../contracts/catalog";
import type { indexStep } from "../../../contracts/services/indexer";
import type { StageOf } from "../../../contracts/services/types";
import { StepFailure, toStepError } from "../../../contracts/step-failure";
import type { EngineEnv } from "../../engines/config";
import type { HandlerContext } from "../../handler";
import { isCancelled } from "../../stage-reporter";
import { parseStepSettings } from "../../step-input";
import { transcriptDetails } from "../shared/text-document";
import type { ServiceStepHandler } from "../types";
import {
  chunkDetails,
  chunkTranscript,
  cutover,
  defaultEmbeddingEngine,
  embedDense,
  embedSparse,
  fetchTranscription,
  indexerResult,
  indexRun,
  rollback,
  writeIndex,
  type IndexRun,
  type MakeEmbeddingEngine,
  type Written,
} from "./stages";

/**
 * The indexer on the runner (stages.ts). For every transcript of the job, in order: `fetch_transcription`
 * (current segments, through the platform), `chunk`, `embed_sparse` (the terms BM25 will weigh; the
 * catalog object indexes them as the chunks are written), `embed_dense` (the catalog's embedding
 * engine), `index` (`catalog.write`, as a new generation beside the live one). Then `cutover` makes
 * every new generation live and removes the previous ones. Nothing goes live until every transcript
 * is written, so a failure after the first write calls `rollback` (the run's chunks are removed) and
 * fails the job with `index_rollback`, while the previous index answers throughout.
 */
export interface IndexerHandlerDeps {
  createEngine?: MakeEmbeddingEngine;
  env?: EngineEnv;
}

export function createIndexerHandler(deps: IndexerHandlerDeps = {}): ServiceStepHandler<"indexer", typeof indexStep> {
  const makeEngine = deps.createEngine ?? defaultEmbeddingEngine;
  return async (ctx) => {
    const { report, input } = ctx;
    const settings = parseStepSettings(ctx.task.settings, ["catalog"]).catalog;
    const run = indexRun(ctx, settings, makeEngine(settings, deps.env ?? process.env));
    const { dense } = run;
    const written: Written[] = [];
    // Set before the first `index` stage: from then on chunks of this run may be in the catalog.
    let writing = false;
    try {
      for (const textSourceId of input.textSourceIds) {
        const doc = await report.stage("fetch_transcription", () => fetchTranscription(run, textSourceId), transcriptDetails);
        const chunks = await report.stage(
          "chunk",
          async () => chunkTranscript(run, doc),
          (cs) => chunkDetails(textSourceId, cs),
        );
        await report.stage(
          "embed_sparse",
          async () => embedSparse(chunks),
          (t) => ({
            textSourceId,
            engine: SPARSE_ENGINE,
            ...t,
            note: "BM25 weights come from the catalog object's index of the written chunks",
          }),
        );
        const vectors = await report.stage(
          "embed_dense",
          () => embedDense(run, chunks),
          (v) => ({ textSourceId, engine: dense.engine, model: dense.model, dimensions: dense.dimensions, vectors: v.length }),
        );
        writing = true;
        await report.stage(
          "index",
          () => writeIndex(run, textSourceId, chunks, vectors),
          () => ({ textSourceId, chunks: chunks.length, collectionWrite: "new generation (not live until cutover)" }),
        );
        written.push({ doc, chunks });
      }
      const results = await report.stage(
        "cutover",
        () => cutover(run, written),
        (rs) => ({ transcripts: rs.length, removedStaleChunks: rs.reduce((n, r) => n + r.removedStaleChunks, 0) }),
      );
      return indexerResult(dense, results);
    } catch (err) {
      // A cancel is cleaned up by the Worker when the job ends (its leftovers go, live generations stay).
      if (isCancelled(err) || !writing) throw err;
      throw await rolledBack(ctx, run, input.textSourceIds, err);
    }
  };
}

/** Removes what this run wrote and turns the failure into `index_rollback` (the previous index stays live). */
async function rolledBack(
  ctx: Pick<HandlerContext<StageOf<typeof indexStep>>, "report">,
  run: IndexRun,
  textSourceIds: string[],
  cause: unknown,
): Promise<StepFailure> {
  const { message } = toStepError(cause);
  await ctx.report.stage(
    "rollback",
    () => rollback(run, textSourceIds),
    (r) => ({ removedChunks: r.removedChunks, cause: message }),
  );
  return new StepFailure("index_rollback", `indexing failed and was rolled back; the previous index still answers: ${message}`, false);
}

export const indexerHandler = createIndexerHandler();
