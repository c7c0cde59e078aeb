import type { StepHandler } from "../handler";
import { clipGenerationHandler } from "./clip-generation/handler";
import { dubbingHandler } from "./dubbing/handler";
import { indexerHandler } from "./indexer/handler";
import { metadataHandler } from "./metadata/handler";
import { summarizationHandler } from "./summarization/handler";
import { createTestHandler } from "./test/handler";
import { thumbnailHandler } from "./thumbnail/handler";
import { transcriptionHandler } from "./transcription/handler";
import { translationHandler } from "./translation/handler";
import { voiceConsentHandler } from "./voice-consent/handler";
import { voiceCreationHandler } from "./voice-creation/handler";
import type { RunnerHandlers } from "./types";

/**
 * The runner's handlers, one line per runner step, keyed by `StepSpec.handler`. The runner
 * advertises exactly these names when it leases, so it is only handed steps it can run; the test
 * service's handler only when RUNNER_ENABLE_TEST_HANDLERS is true.
 */
function handlers(opts: { runnerId: string }) {
  return {
    transcription: transcriptionHandler,
    clip_generation: clipGenerationHandler,
    thumbnail: thumbnailHandler,
    metadata: metadataHandler,
    summarization: summarizationHandler,
    indexer: indexerHandler,
    translation: translationHandler,
    dubbing: dubbingHandler,
    voice_creation: voiceCreationHandler,
    voice_consent: voiceConsentHandler,
    "test.work": createTestHandler(opts),
  } satisfies RunnerHandlers;
}

const TEST_HANDLERS: readonly string[] = ["test.work"];

export function buildHandlerRegistry(opts: { enableTestHandlers: boolean; runnerId: string }): Record<string, StepHandler> {
  const all: Record<string, StepHandler> = handlers(opts) as unknown as Record<string, StepHandler>;
  return Object.fromEntries(Object.entries(all).filter(([name]) => opts.enableTestHandlers || !TEST_HANDLERS.includes(name)));
}
