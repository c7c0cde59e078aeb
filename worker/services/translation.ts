import { requireSegmentedTranscript } from "../jobs/references";
import { defineWorkerService, runnerBase } from "./types";

/** Translation of a completed transcript into a target language (pipeline not built yet). */
export const translationWorker = defineWorkerService<"translation">({
  meter: "translation_jobs",
  resolve: async ({ db, projectId }, input) => {
    await requireSegmentedTranscript(db, projectId, input.textSourceId, "input.textSourceId");
    return { input: { ...input, sourceLayer: input.sourceLayer ?? "current" }, credits: 1 };
  },
  policy: (s) => ({
    supportedTargetLanguages: s.policy.translation.supportedTargetLanguages,
    backend: s.policy.translation.backend,
    plans: { free: { monthlyJobs: null }, enterprise: { monthlyJobs: null } },
  }),
  sinks: {},
  runnerSettings: runnerBase,
});
