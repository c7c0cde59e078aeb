import { z } from "zod";
import {
  CatalogCutoverSchema,
  CatalogRollbackSchema,
  CatalogWriteSchema,
  collectionName,
  IndexerResultSchema,
} from "../../../contracts/catalog";
import { requireSegmentedTranscript } from "../../jobs/references";
import { cutover, removeJobLeftovers, rollback, writeChunks, type Scope } from "../../catalog/index-writer";
import { vectorStoreFor } from "../../catalog/vector-store/factory";
import { validatedSink } from "../shared/step-result";
import { validatedCall } from "../shared/runner-call";
import { defineWorkerService, type RunnerCall } from "../types";
import { catalogRoutes } from "./routes";

/**
 * Indexer, the Worker's side: create checks (1–50 ids, deduplicated, one credit each), the calls
 * its runner step writes the catalog through (worker/catalog/index-writer.ts), the result, and the
 * catalog routes (`/v1/catalog/*`, routes.ts).
 */

/** A catalog call: its body checked by `schema`, run in the job's catalog scope. */
function catalogCall<S extends z.ZodType>(
  schema: S,
  run: (scope: Scope, body: z.infer<S>) => Promise<Record<string, unknown>>,
): RunnerCall {
  return validatedCall(schema, ({ env, db, job, attempt }, body) =>
    run({ db, store: vectorStoreFor(env), projectId: job.projectId, jobId: job.jobId, attempt }, body),
  );
}

const ids = (input: Record<string, unknown>) => (input["textSourceIds"] as string[] | undefined) ?? [];

export const indexerWorker = defineWorkerService<"indexer">({
  meter: "indexing_credits",
  resolve: async ({ db, projectId }, input) => {
    const unique = [...new Set(input.textSourceIds)];
    for (const id of unique) await requireSegmentedTranscript(db, projectId, id, "input.textSourceIds");
    return { input: { textSourceIds: unique }, credits: unique.length };
  },
  sinks: {
    indexer: validatedSink(IndexerResultSchema, "indexer", async ({ job }, r) => ({
      ok: true,
      summary: {
        textSourceId: r.indexedTranscriptions[0]!.textSourceId,
        collection: collectionName(job.projectId),
        indexedChunks: r.indexedTranscriptions.reduce((n, t) => n + t.indexedChunks, 0),
        denseEngine: r.denseEngine,
        denseModel: r.denseModel,
        sparseEngine: r.sparseEngine,
        chunkType: r.chunkType,
        indexedTranscriptions: r.indexedTranscriptions,
      },
    })),
  },
  runnerCalls: {
    "catalog.write": catalogCall(CatalogWriteSchema, writeChunks),
    "catalog.cutover": catalogCall(CatalogCutoverSchema, cutover),
    "catalog.rollback": catalogCall(CatalogRollbackSchema, (s, b) => rollback(s, b.textSourceIds)),
  },
  // A job that failed or was cancelled mid-index (runner lost, cancel between transcripts) leaves no
  // half-written generation behind; live ones, including those it cut over, stay.
  onEnded: async ({ env, db }, job) => {
    if (job.status === "completed") return;
    await removeJobLeftovers({ db, store: vectorStoreFor(env), projectId: job.projectId, jobId: job.jobId }, ids(job.input));
  },
  runnerSettings: (s) => ({ runner: s.runner, catalog: s.catalog }),
  routes: { "/catalog": catalogRoutes },
});
