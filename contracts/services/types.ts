import type { z } from "zod";
import type { StepSpec } from "../pipelines";
import type { SERVICE_NAMES } from "../pipelines";

/**
 * The contract of one service type, shared by the Worker and the runner: what a client may send,
 * which steps run (and on which executor), which progress stages each step may report, what each
 * step returns, and which failure codes the service uses. One module per service under
 * `contracts/services/`, collected by `contracts/services/index.ts`.
 */

/** Service names: the spec's public service types plus `test`, the machinery's own test service. */
export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface StepContract<Stage extends string = string> {
  /** Unique within the service; the key of the step's output for later steps. */
  readonly name: string;
  readonly executor: StepSpec["executor"];
  /** The handler's name on its executor; a runner advertises these names when it leases. */
  readonly handler: string;
  /** The progress stages this step may report, and no other (the JobDO refuses the rest). */
  readonly stages: readonly Stage[];
  /** What the step returns on success; the Worker validates it before storing anything. */
  readonly result: z.ZodType<Record<string, unknown>>;
  /**
   * What the step keeps for the steps after it (its sink's `output`, held by the JobDO, handed on as
   * `task.outputs[name]`), when it keeps anything. A later runner step reads it typed (`ctx.outputs`).
   */
  readonly output?: z.ZodType<Record<string, unknown>>;
}

export interface ServiceContract {
  readonly serviceType: ServiceName;
  /** The `input` object of `POST /v1/jobs` for this service type (strict: unknown keys are 422). */
  readonly input: z.ZodType<Record<string, unknown>>;
  /**
   * The input as the job stores it: what the Worker's `resolve()` returns (defaults filled, ids and
   * keys assigned) and what every step reads (`ctx.input` on the runner, parsed once per task). Jobs
   * stored by an older version are read through the same schema: a field added later is optional
   * here, or an older shape is upgraded by a union, never by a handler's comment.
   */
  readonly stored: z.ZodType<Record<string, unknown>>;
  /** Every progress stage of the service, from the spec's "Progress events" table. */
  readonly stages: readonly string[];
  /** The pipeline, in order. Empty: not built yet, so jobs are refused at create (`serviceNotAvailable`). */
  readonly steps: readonly StepContract[];
  /** The `error.code` values a failed job of this service can carry. */
  readonly failureCodes: readonly string[];
  /** Failure codes a retry cannot change: the job fails at once. */
  readonly nonRetryableCodes: readonly string[];
}

/** Declares a service contract keeping its literal stage and step names for the handlers' types. */
export function defineService<const C extends ServiceContract>(contract: C): C {
  return contract;
}

export function defineStep<const Stage extends string, const S extends StepContract<Stage>>(step: S & { stages: readonly Stage[] }): S {
  return step;
}

/** The wire form of a step (what the JobDO stores and a runner leases). */
export function stepSpec(service: ServiceName, step: StepContract, params: Record<string, unknown> = {}): StepSpec {
  return { service, name: step.name, executor: step.executor, handler: step.handler, stages: [...step.stages], params };
}

/** The stage names a step may report, as a type: `StageOf<typeof transcribeStep>`. */
export type StageOf<S> = S extends StepContract<infer Stage> ? Stage : never;

/** Codes every service shares: a retry may help, or the platform lost the worker. */
export const COMMON_FAILURE_CODES = ["processing_failed", "runner_lost"] as const;

/**
 * The bounds every step that opens a customer's media or talks to a customer's server enforces
 * (docs/api.md "Limits and safety"). A retry meets the same file or server, so they are final.
 */
export const SAFETY_FINAL_CODES = [
  "source_too_large",
  "unsupported_media",
  "duration_exceeded",
  "redirect_refused",
  "processing_timeout",
  "storage_endpoint_refused",
  /** The job's storage connection was deactivated after create: its credentials are no longer used. */
  "storage_connection_inactive",
] as const;

/** The runner had too little free disk for the source: another runner may have the room, so it is retried. */
export const INSUFFICIENT_DISK = "insufficient_disk";
