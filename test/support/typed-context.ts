import { z } from "zod";
import { TranscriptHandoverOutputSchema } from "../../contracts/transcript-handover";
import type { TestContext } from "./handler-context";

/**
 * A test context as a service's typed handler sees it (`ServiceStepHandler`): `input` and `outputs`
 * read through the service's own schemas. The task's data is parsed by the runner's `parseTaskData`
 * first, on first read as before, so a bad input still fails the handler `invalid_input`.
 */
export type TypedTestContext<Input, Outputs> = Omit<TestContext, "input" | "outputs"> & {
  readonly input: Input;
  readonly outputs: Outputs;
};

export function typedContext<Input, Outputs>(
  ctx: TestContext,
  schemas: { input: z.ZodType<Input>; outputs: z.ZodType<Outputs> },
): TypedTestContext<Input, Outputs> {
  const { task, report, workDir, signal, cores, platform, openStorage, openObjects, abort, dispose } = ctx;
  let input: Input | undefined;
  let outputs: Outputs | undefined;
  return {
    task,
    report,
    workDir,
    signal,
    cores,
    platform,
    openStorage,
    openObjects,
    abort,
    dispose,
    get input() {
      return (input ??= schemas.input.parse(ctx.input));
    },
    get outputs() {
      return (outputs ??= schemas.outputs.parse(ctx.outputs));
    },
  };
}

/** Earlier outputs of a service with no step before its runner step (transcription, dubbing…). */
export const NO_OUTPUTS = z.object({});
/** Earlier outputs of a step after `fetch_transcription` (clips, thumbnails). */
export const AFTER_HANDOVER = z.object({ fetch_transcription: TranscriptHandoverOutputSchema.optional() });
