import { requireSegmentedTranscript } from "../jobs/references";
import { defineWorkerService, runnerBase } from "./types";

/** Metadata: title, description, IAB categories and chapters on the transcript (pipeline not built yet). */
export const metadataWorker = defineWorkerService<"metadata">({
  meter: "metadata_credits",
  resolve: async ({ db, projectId }, input) => {
    await requireSegmentedTranscript(db, projectId, input.textSourceId, "input.textSourceId");
    return { input: { ...input }, credits: 1 };
  },
  sinks: {},
  runnerSettings: runnerBase,
});
