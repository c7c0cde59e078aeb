import type { generateMetadataStep, MetadataStepResult } from "../../../contracts/services/metadata";
import type { EngineEnv } from "../../engines/text/interface";
import { parseStepSettings } from "../../step-input";
import type { ServiceStepHandler } from "../types";
import { defaultTextEngine, readTranscript, transcriptDetails, type MakeTextEngine } from "../shared/text-document";

/**
 * Metadata on the runner: `load_transcription` reads the transcript's current segments through the
 * platform, `generate_metadata` has the text engine write title, description, IAB categories,
 * chapters and keywords. The Worker's `save_metadata` step stores the result on the transcript.
 */
export interface TextHandlerDeps {
  createEngine?: MakeTextEngine;
  env?: EngineEnv;
}

export function createMetadataHandler(deps: TextHandlerDeps = {}): ServiceStepHandler<"metadata", typeof generateMetadataStep> {
  const makeEngine = deps.createEngine ?? defaultTextEngine;
  return async (ctx) => {
    const { report, signal, task, input } = ctx;
    const settings = parseStepSettings(task.settings, ["understanding"]).understanding;
    const doc = await report.stage("load_transcription", () => readTranscript(ctx, input.textSourceId), transcriptDetails);
    const engine = makeEngine(settings, deps.env ?? process.env);
    const draft = await report.stage(
      "generate_metadata",
      () => engine.metadata({ doc, signal }),
      (d) => ({
        ...engine.generatedBy,
        titleLength: d.title.length,
        chapters: d.chapters.length,
        categories: d.categories.map((c) => c.id),
        keywords: d.keywords.length,
      }),
    );
    const result: MetadataStepResult = {
      ...draft,
      generatedBy: engine.generatedBy,
      transcriptRevision: doc.revision,
      segmentCount: doc.segments.length,
      durationSec: doc.durationSec,
    };
    return result;
  };
}

export const metadataHandler = createMetadataHandler();
