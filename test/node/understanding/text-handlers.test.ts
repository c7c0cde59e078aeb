import { afterEach, describe, expect, it } from "vitest";
import { generateMetadataStep, MetadataStoredSchema } from "../../../contracts/services/metadata";
import { SummarizationStoredSchema, synthesisStep } from "../../../contracts/services/summarization";
import { stepSpec } from "../../../contracts/services/types";
import { MetadataDraftSchema, SummaryDraftSchema } from "../../../contracts/understanding";
import { StepFailure } from "../../../contracts/step-failure";
import type { MetadataRequest, SummaryRequest, TextEngine } from "../../../gpu-runner/engines/text/interface";
import { LocalExtractiveTextEngine } from "../../../gpu-runner/engines/text/local-extractive";
import { createMetadataHandler } from "../../../gpu-runner/services/metadata/handler";
import { createSummarizationHandler } from "../../../gpu-runner/services/summarization/handler";
import { FakePlatform, transcriptDoc } from "../../support/fake-platform";
import { makeHandlerContext, type TestContext } from "../../support/handler-context";
import { rejectionOf } from "../../support/rejection";

/**
 * The metadata and summarization runner steps: the transcript read through the platform, the text
 * engine platform settings name, the stages the spec lists, and the record's provenance.
 */

const TEXTS = [
  "Welcome to the bakery, where we bake bread every morning.",
  "First we mix flour, water, salt and yeast into a dough.",
  "Then we knead the dough until it is smooth and elastic.",
  "The dough rises for two hours in a warm place.",
  "Finally the loaves bake in a very hot oven for forty minutes.",
];
const DOC = {
  ...transcriptDoc("txt_bread", TEXTS, 20),
  visualChunks: [{ index: 0, start: 0, end: 50, summary: "a kitchen", descriptors: {} }],
};

let ctx: TestContext | undefined;
afterEach(async () => {
  await ctx?.dispose();
  ctx = undefined;
});

/** Records what the handler asked of it and answers with the local engine's drafts. */
class RecordingEngine implements TextEngine {
  readonly local = new LocalExtractiveTextEngine();
  readonly generatedBy = this.local.generatedBy;
  asked: Array<MetadataRequest | SummaryRequest> = [];
  metadata(req: MetadataRequest) {
    this.asked.push(req);
    return this.local.metadata(req);
  }
  summarize(req: SummaryRequest) {
    this.asked.push(req);
    return this.local.summarize(req);
  }
}

const settings = { understanding: { textEngine: "local-extractive" } };

async function metadataContext(platform: FakePlatform) {
  const c = await makeHandlerContext({
    input: { textSourceId: "txt_bread", metadataId: "mdt_1" },
    storage: null,
    platform,
    settings,
    step: stepSpec("metadata", generateMetadataStep),
    stored: MetadataStoredSchema,
  });
  ctx = c;
  return c;
}

async function summarizationContext(platform: FakePlatform) {
  const c = await makeHandlerContext({
    input: {
      textSourceJobId: "txt_bread",
      textSourceId: "txt_bread",
      summarizationId: "sum_1",
      config: { textEngine: "local-extractive", textModel: null, visualChunks: true },
    },
    storage: null,
    platform,
    settings,
    step: stepSpec("summarization", synthesisStep),
    stored: SummarizationStoredSchema,
  });
  ctx = c;
  return c;
}

describe("metadata handler", () => {
  it("reports load_transcription then generate_metadata, and returns a valid draft with its provenance", async () => {
    const engine = new RecordingEngine();
    const c = await metadataContext(new FakePlatform({ txt_bread: DOC }));
    const result = await createMetadataHandler({ createEngine: () => engine })(c);
    expect(c.report.timeline()).toEqual([
      "load_transcription:started",
      "load_transcription:completed",
      "generate_metadata:started",
      "generate_metadata:completed",
    ]);
    expect(MetadataDraftSchema.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({ generatedBy: engine.generatedBy, transcriptRevision: 1, segmentCount: 5, durationSec: 100 });
    expect(c.report.eventsOf("generate_metadata")[1]?.details).toMatchObject({ engine: "local-extractive", kind: "extractive" });
  });

  it("a transcript with no words fails with no_segments before the engine is asked", async () => {
    const engine = new RecordingEngine();
    const c = await metadataContext(new FakePlatform({ txt_bread: transcriptDoc("txt_bread", ["", " "]) }));
    expect(await rejectionOf(createMetadataHandler({ createEngine: () => engine })(c), StepFailure)).toMatchObject({
      code: "no_segments",
      retryable: false,
    });
    expect(engine.asked).toEqual([]);
  });

  it("an engine failure fails generate_metadata with the engine's code", async () => {
    const broken: TextEngine = {
      generatedBy: { engine: "openai-compatible", model: "m", kind: "language-model" },
      metadata: async () => {
        throw new StepFailure("processing_failed", "openai-compatible (m): HTTP 503 after 3 attempts", true);
      },
      summarize: async () => {
        throw new Error("not asked");
      },
    };
    const c = await metadataContext(new FakePlatform({ txt_bread: DOC }));
    expect(await rejectionOf(createMetadataHandler({ createEngine: () => broken })(c), StepFailure)).toMatchObject({
      code: "processing_failed",
      retryable: true,
    });
    expect(c.report.timeline().slice(-1)).toEqual(["generate_metadata:failed"]);
  });

  it("a transcript that is gone fails with source_not_found", async () => {
    const c = await metadataContext(new FakePlatform({}));
    expect(await rejectionOf(createMetadataHandler()(c), StepFailure)).toMatchObject({ code: "source_not_found" });
  });
});

describe("summarization handler", () => {
  it("reports synthesis once, passes the visual chunks to the engine, and returns a valid draft", async () => {
    const engine = new RecordingEngine();
    const c = await summarizationContext(new FakePlatform({ txt_bread: DOC }));
    const result = await createSummarizationHandler({ createEngine: () => engine })(c);
    expect(c.report.timeline()).toEqual(["synthesis:started", "synthesis:completed"]);
    expect((engine.asked[0] as SummaryRequest).visualChunks).toEqual(DOC.visualChunks);
    expect(SummaryDraftSchema.safeParse(result).success).toBe(true);
    expect(result).toMatchObject({ visualChunkCount: 1, segmentCount: 5, generatedBy: { kind: "extractive" } });
  });
});
