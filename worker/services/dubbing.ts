import { notFound } from "../errors";
import { requireSegmentedTranscript } from "../jobs/references";
import { defineWorkerService, runnerBase } from "./types";

/** Dubbing from a transcript and its translation (pipeline not built yet). */
export const dubbingWorker = defineWorkerService<"dubbing">({
  meter: "dubbing_jobs",
  resolve: async ({ db, projectId }, input) => {
    await requireSegmentedTranscript(db, projectId, input.transcriptionId, "input.transcriptionId");
    // No translation or voice records exist until those services are built: any id is unknown.
    if (input.translationId)
      throw notFound(`translation not found: ${input.translationId}`, [
        { path: "input.translationId", issue: `notFound:${input.translationId}` },
      ]);
    const [label, voice] = Object.entries(input.options?.voiceAssignments ?? {})[0] ?? [];
    if (label && voice)
      throw notFound(`voice not found: ${voice}`, [{ path: `input.options.voiceAssignments.${label}`, issue: `notFound:${voice}` }]);
    return { input: { ...input, sourceLayer: input.sourceLayer ?? "current" }, credits: 1 };
  },
  sinks: {},
  runnerSettings: runnerBase,
});
