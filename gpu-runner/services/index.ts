import type { StepHandler } from "../handler";
import { createTestHandlers } from "./test/handler";
import { transcriptionHandler } from "./transcription/handler";

/**
 * The runner's handler registry, keyed by `StepSpec.handler` (contracts/pipelines.ts). The runner
 * advertises exactly these names when it leases, so it is only handed steps it can run.
 * Adding a runner step = writing a StepHandler and registering it here.
 */
export const PRODUCTION_HANDLERS: Readonly<Record<string, StepHandler>> = {
  transcription: transcriptionHandler,
};

export function buildHandlerRegistry(opts: { enableTestHandlers: boolean; runnerId: string }): Record<string, StepHandler> {
  return {
    ...PRODUCTION_HANDLERS,
    ...(opts.enableTestHandlers ? createTestHandlers({ runnerId: opts.runnerId }) : {}),
  };
}
