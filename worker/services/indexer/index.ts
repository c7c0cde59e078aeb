import { z } from "zod";
import {
  CatalogCutoverSchema,
  CatalogRollbackSchema,
  CatalogWriteSchema,
  collectionName,
  IndexerResultSchema,
} from "../../../contracts/catalog";
import { IndexerStoredSchema } from "../../../contracts/services/indexer";
import { requireSegmentedTranscript } from "../../transcripts/lookup";
import { cutover, removeJobLeftovers, rollback, writeChunks, type Scope } from "../../catalog/index-writer";
import { vectorStoreFor } from "../../catalog/vector-store/factory";
import { validatedSink } from "../shared/step-result";
import { validatedCall } from "../shared/runner-call";
import { refused } from "../shared/result-checks";
import { transcriptsNamedBy } from "../../transcripts/runner-view";
import type { Job } from "../../../contracts/job";
import { defineWorkerService, type RunnerCall } from "../types";
import { catalogRoutes } from "./routes";

/**
 * Indexer, the Worker's side: create checks (1–50 ids, deduplicated, one credit each), the calls
 * its runner step writes the catalog through (worker/catalog/index-writer.ts), the result, and the
 * catalog routes (`/v1/catalog/*`, routes.ts).
 */

/**
 * The transcripts a call or result names must be ones the job names: a runner must not write,
 * cut over or roll back another transcript's catalog entry (nor another project's: the job's are
 * checked against its project at create).
 */
function requireNamedTranscripts(job: Job, refs: ReadonlyArray<{ id: string; path: string }>): void {
  const named = transcriptsNamedBy(job);
  for (const { id, path } of refs) {
    if (!named.includes(id))
      throw refused(`${path}: job ${job.jobId} does not name transcript ${id}`, { path, issue: `notNamedByJob:${id}` });
  }
}

/** A catalog call: its body checked by `schema` and by the transcripts it names, run in the job's catalog scope. */
function catalogCall<S extends z.ZodType>(
  schema: S,
  named: (body: z.infer<S>) => Array<{ id: string; path: string }>,
  run: (scope: Scope, body: z.infer<S>) => Promise<Record<string, unknown>>,
): RunnerCall {
  return validatedCall(schema, ({ env, job, attempt }, body) => {
    requireNamedTranscripts(job, named(body));
    return run({ catalog: env.CATALOG, store: vectorStoreFor(env), projectId: job.projectId, jobId: job.jobId, attempt }, body);
  });
}

export const indexerWorker = defineWorkerService<"indexer">({
  meter: "indexing_credits",
  quote: (input) => new Set(input.textSourceIds).size,
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
  resultChecks: {
    indexer: ({ job }, raw) => {
      const parsed = IndexerResultSchema.safeParse(raw);
      if (!parsed.success) return;
      requireNamedTranscripts(
        job,
        parsed.data.indexedTranscriptions.map((t, i) => ({ id: t.textSourceId, path: `result.indexedTranscriptions.${i}.textSourceId` })),
      );
    },
  },
  runnerCalls: {
    "catalog.write": catalogCall(CatalogWriteSchema, (b) => [{ id: b.textSourceId, path: "body.textSourceId" }], writeChunks),
    "catalog.cutover": catalogCall(CatalogCutoverSchema, (b) => [{ id: b.textSourceId, path: "body.textSourceId" }], cutover),
    "catalog.rollback": catalogCall(
      CatalogRollbackSchema,
      (b) => b.textSourceIds.map((id, i) => ({ id, path: `body.textSourceIds.${i}` })),
      (s, b) => rollback(s, b.textSourceIds),
    ),
  },
  // A job that failed or was cancelled mid-index (runner lost, cancel between transcripts) leaves no
  // half-written generation behind; live ones, including those it cut over, stay.
  onEnded: async ({ env }, job) => {
    if (job.status === "completed") return;
    const { textSourceIds } = IndexerStoredSchema.parse(job.input);
    await removeJobLeftovers(
      { catalog: env.CATALOG, store: vectorStoreFor(env), projectId: job.projectId, jobId: job.jobId },
      textSourceIds,
    );
  },
  runnerSettings: (s) => ({ runner: s.runner, catalog: s.catalog }),
  routes: { "/catalog": catalogRoutes },
});
