import type { SummarizationStepResult, synthesisStep } from "../../../contracts/services/summarization";
import type { TextHandlerDeps } from "../metadata/handler";
import { parseStepSettings } from "../../step-input";
import type { ServiceStepHandler } from "../types";
import { defaultTextEngine, readTranscript } from "../shared/text-document";

/**
 * Summarization on the runner, one stage (`synthesis`, as the spec lists): the transcript's current
 * segments and the visual chunks its transcription stored, written up by the text engine. The record
 * says which visual chunks the summary drew on.
 */
export function createSummarizationHandler(deps: TextHandlerDeps = {}): ServiceStepHandler<"summarization", typeof synthesisStep> {
  const makeEngine = deps.createEngine ?? defaultTextEngine;
  return async (ctx) => {
    const { report, signal, task, input } = ctx;
    const settings = parseStepSettings(task.settings, ["understanding"]).understanding;
    const engine = makeEngine(settings, deps.env ?? process.env);
    return report.stage(
      "synthesis",
      async (): Promise<SummarizationStepResult> => {
        const doc = await readTranscript(ctx, input.textSourceId);
        const draft = await engine.summarize({ doc, visualChunks: doc.visualChunks, signal });
        return {
          ...draft,
          generatedBy: engine.generatedBy,
          speakers: doc.speakers,
          transcriptRevision: doc.revision,
          segmentCount: doc.segments.length,
          visualChunkCount: doc.visualChunks.length,
        };
      },
      (r) => ({
        ...r.generatedBy,
        segments: r.segmentCount,
        visualChunks: r.visualChunkCount,
        visualChunksUsed: r.visualChunksUsed.length,
        shortSynopsisLength: r.shortSynopsis.length,
      }),
    );
  };
}

export const summarizationHandler = createSummarizationHandler();
