import { requireSegmentedTranscript } from "../jobs/references";
import { defineWorkerService, runnerBase } from "./types";

/** Indexer: transcripts into the project's search collection (pipeline not built yet). */
export const indexerWorker = defineWorkerService<"indexer">({
  meter: "indexing_credits",
  resolve: async ({ db, projectId }, input) => {
    const ids = [...new Set(input.textSourceIds)];
    for (const id of ids) await requireSegmentedTranscript(db, projectId, id, "input.textSourceIds");
    // One indexing credit per (deduplicated) id.
    return { input: { textSourceIds: ids }, credits: ids.length };
  },
  sinks: {},
  runnerSettings: runnerBase,
});
