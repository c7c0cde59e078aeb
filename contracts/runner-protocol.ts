import { z } from "zod";
import { JobErrorSchema, ProgressEntrySchema } from "./job";
import { PrioritySchema } from "./service-types";
import { StepSpecSchema } from "./pipelines";

/**
 * The gpu-runner protocol. Routes live under `/runner/v1/` and authenticate with a runner token
 * (`Authorization: Bearer <RUNNER_TOKEN>`), never with a customer key. Every call after a lease
 * carries the lease token; a runner whose lease was lost is answered 409 `leaseLost` and must stop.
 */
export const RUNNER_PROTOCOL_VERSION = 1;

export const LeaseRequestSchema = z.object({
  runnerId: z.string().min(1).max(128),
  /** Lanes this runner serves, highest priority first is implied by the server. */
  lanes: z.array(PrioritySchema).min(1).default(["high", "normal", "low"]),
  /** Handlers this runner can execute, e.g. `transcription`. */
  handlers: z.array(z.string().min(1)).min(1),
});
export type LeaseRequest = z.infer<typeof LeaseRequestSchema>;

export const StorageGrantSchema = z.object({
  connectionId: z.string(),
  endpoint: z.string(),
  region: z.string(),
  forcePathStyle: z.boolean(),
  accessKeyId: z.string(),
  secretAccessKey: z.string(),
  bucket: z.string(),
});
export type StorageGrant = z.infer<typeof StorageGrantSchema>;

export const LeasedTaskSchema = z.object({
  taskId: z.string(),
  leaseToken: z.string(),
  leaseUntil: z.string(),
  /** Seconds between heartbeats the server expects (well inside the lease). */
  heartbeatIntervalSec: z.number().positive(),
  jobId: z.string(),
  attempt: z.number().int().nonnegative(),
  serviceType: z.string(),
  step: StepSpecSchema,
  input: z.record(z.string(), z.unknown()),
  /** Credentials for the customer's bucket; the runner reads and writes it directly. */
  storage: StorageGrantSchema.nullable(),
  /** Platform settings the handler needs (engine choice, limits). */
  settings: z.record(z.string(), z.unknown()),
});
export type LeasedTask = z.infer<typeof LeasedTaskSchema>;

export const LeaseResponseSchema = z.object({ task: LeasedTaskSchema.nullable() });

export const LeaseTokenBodySchema = z.object({ leaseToken: z.string().min(1) });

export const HeartbeatResponseSchema = z.object({ leaseUntil: z.string(), cancelRequested: z.boolean() });
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;

export const EventsRequestSchema = LeaseTokenBodySchema.extend({
  events: z.array(ProgressEntrySchema.omit({ at: true }).extend({ at: z.string().optional() })).min(1).max(100),
});
export type EventsRequest = z.infer<typeof EventsRequestSchema>;

export const EventsResponseSchema = z.object({ cancelRequested: z.boolean() });
export type EventsResponse = z.infer<typeof EventsResponseSchema>;

/** The answer to complete, fail, cancelled and release. */
export const OkResponseSchema = z.object({ ok: z.literal(true) });

export const CompleteRequestSchema = LeaseTokenBodySchema.extend({
  result: z.record(z.string(), z.unknown()),
});

export const FailRequestSchema = LeaseTokenBodySchema.extend({
  error: JobErrorSchema.extend({ retryable: z.boolean() }),
});

/** Non-retryable failure codes: a retry cannot change the outcome. */
export const NON_RETRYABLE_CODES = new Set([
  "duration_exceeded",
  "transcript_too_large",
  "unsupported_media",
  "unsupported_language",
  "source_not_found",
  "source_access_denied",
  "invalid_input",
  "index_rollback",
]);
