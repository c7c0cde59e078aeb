import { z } from "zod";
import { RedactedSpanSchema } from "./redaction";
import { JobErrorSchema, ProgressEntrySchema } from "./job";
import { SegmentSchema, SpeakerSchema, VisualChunkSchema } from "./transcript";
import { PrioritySchema } from "./service-types";
import { StepSpecSchema } from "./pipelines";
import { NON_RETRYABLE_CODES as SERVICE_NON_RETRYABLE } from "./services/index";
import { SAFETY_FINAL_CODES } from "./services/types";
import { PresignedGrantSchema } from "./presigned";

/**
 * The gpu-runner protocol. Routes live under `/runner/v1/` and authenticate with the runner's own
 * token (`Authorization: Bearer <runner token>`, minted by the operator), never with a customer key. Every call after a lease
 * carries the lease token; a runner whose lease was lost is answered 409 `leaseLost` and must stop.
 */
export const RUNNER_PROTOCOL_VERSION = 1;

export const MAX_LEASE_WAIT_SECONDS = 20;

export const LeaseRequestSchema = z.object({
  runnerId: z.string().min(1).max(128),
  /** Lanes this runner serves, highest priority first is implied by the server. */
  lanes: z.array(PrioritySchema).min(1).default(["high", "normal", "low"]),
  /** Handlers this runner can execute, e.g. `transcription` (bounded: the claim binds each as a D1 parameter). */
  handlers: z.array(z.string().min(1).max(128)).min(1).max(32),
  /**
   * Long poll: when no task is available, the server holds the request up to this many seconds
   * and answers as soon as one is, so an idle runner picks up work without waiting out a poll interval.
   */
  waitSeconds: z.number().min(0).max(MAX_LEASE_WAIT_SECONDS).default(0),
});
/** What a runner sends (defaults filled on the server). */
export type LeaseRequest = z.input<typeof LeaseRequestSchema>;

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
  /** An `s3_presigned` job's full URLs (contracts/presigned.ts); null for a job that reads a bucket. Never logged. */
  presigned: PresignedGrantSchema.nullable().optional(),
  /** The slice of platform settings the step's service hands its runner steps (engine choice, limits, lease periods). */
  settings: z.record(z.string(), z.unknown()),
  /** Outputs of the job's earlier steps, by step name (small JSON). */
  outputs: z.record(z.string(), z.record(z.string(), z.unknown())).default({}),
  /**
   * Where the step may write artifacts for later steps in the job's bucket (deleted when the job
   * ends, if the step names them in its result's `artifacts`); null when the job has no storage.
   */
  scratchPrefix: z.string().nullable().default(null),
});
export type LeasedTask = z.infer<typeof LeasedTaskSchema>;

export const LeaseResponseSchema = z.object({ task: LeasedTaskSchema.nullable() });

export const LeaseTokenBodySchema = z.object({ leaseToken: z.string().min(1) });

export const HeartbeatResponseSchema = z.object({ leaseUntil: z.string(), cancelRequested: z.boolean() });
export type HeartbeatResponse = z.infer<typeof HeartbeatResponseSchema>;

export const EventsRequestSchema = LeaseTokenBodySchema.extend({
  events: z
    .array(ProgressEntrySchema.omit({ at: true }).extend({ at: z.string().optional() }))
    .min(1)
    .max(100),
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

/** Non-retryable failure codes: every service's own (contracts/services), plus the protocol's and the safety bounds'. */
export const NON_RETRYABLE_CODES: ReadonlySet<string> = new Set([...SERVICE_NON_RETRYABLE, "invalid_input", ...SAFETY_FINAL_CODES]);

/**
 * `POST /runner/v1/tasks/{taskId}/transcript`: one transcript the task's job names in its input
 * (`textSourceId` or `textSourceIds`), as the services that work from text need it (metadata,
 * summarization, indexer): its current `segments` layer without word timings, and its visual chunks.
 */
export const TranscriptRequestSchema = LeaseTokenBodySchema.extend({ textSourceId: z.string().min(1).max(128) });

export const TranscriptDocumentSchema = z.object({
  textSourceId: z.string(),
  language: z.string(),
  durationSec: z.number().nonnegative(),
  revision: z.number().int().nonnegative(),
  segments: z.array(SegmentSchema.omit({ words: true })),
  /** The transcript's speakers with their names; empty when it was not diarized (or from a Worker before speakers). */
  speakers: z.array(SpeakerSchema).default([]),
  visualChunks: z.array(VisualChunkSchema),
  /** Spans of the media whose words were redacted; empty when the transcript was not (or from a Worker before redaction). */
  redactedSpans: z.array(RedactedSpanSchema).default([]),
});
export type TranscriptDocument = z.infer<typeof TranscriptDocumentSchema>;

/**
 * `POST /runner/v1/tasks/{taskId}/calls/{name}`: a service's own call for its runner steps (e.g. the
 * indexer's `catalog.write`), answered by the Worker's module of the job's service. `body` is checked
 * by the call's own schema there.
 */
export const ServiceCallRequestSchema = LeaseTokenBodySchema.extend({ body: z.unknown() });
