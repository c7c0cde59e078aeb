import { z } from "zod";
import { SERVICE_TYPES } from "./service-types";

/**
 * The wire form of one pipeline step: what the JobDO stores for a job, hands to a runner in a
 * lease, and reads when a step reports. Steps are declared in each service's contract
 * (`contracts/services/<name>.ts`); `stepSpec()` there turns a declaration into this form.
 */
export const SERVICE_NAMES = [...SERVICE_TYPES, "test"] as const;

export const StepSpecSchema = z.object({
  /** The service whose module defines the step (its result sink, its handler). */
  service: z.enum(SERVICE_NAMES),
  name: z.string().min(1).max(64),
  executor: z.enum(["runner", "worker"]),
  /** Name of the handler on the executor, e.g. `transcription` on the runner. */
  handler: z.string().min(1).max(64),
  /** Progress stages this step may report; the JobDO refuses any other. */
  stages: z.array(z.string().min(1).max(64)).min(1),
  /** Handler parameters fixed by the platform (never by the client). */
  params: z.record(z.string(), z.unknown()).default({}),
});
export type StepSpec = z.infer<typeof StepSpecSchema>;

/** A test pipeline's step (settings `testPipelines`): always one of the test service's steps. */
export const TestStepSpecSchema = StepSpecSchema.extend({
  service: z.literal("test").default("test"),
  handler: z.literal("test.work"),
});
