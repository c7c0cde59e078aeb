import type { Hono } from "hono";
import type { Job } from "../../contracts/job";
import type { StepApplied } from "../../contracts/step-kit";
import type { StepSpec } from "../../contracts/pipelines";
import type { InputOf, StoredInputOf } from "../../contracts/services/index";
import type { ServiceName } from "../../contracts/services/types";
import type { Plan, ServiceType } from "../../contracts/service-types";
import type { QuotaMeter, Settings } from "../../contracts/settings";
import type { InWorkerStepContext } from "../../queues/worker-steps";
import type { Db } from "../db/client";
import type { AppBindings, Env } from "../env";
/** One D1 write of a create's batch: a drizzle query, built but not run (worker/jobs/create.ts binds it into the batch). */
export interface CreateWrite {
  toSQL(): { sql: string; params: unknown[] };
}

/**
 * What one service type needs from the Worker, in one module per service (`worker/services/<name>`),
 * collected by `worker/services/index.ts`. The job machinery (create, the JobDO's hooks, the policy
 * route, the runner routes, the usage report) reads these and never branches on `serviceType`.
 */

export interface CreateContext {
  env: Env;
  db: Db;
  projectId: string;
  plan: Plan;
  settings: Settings;
  /** Who asks (the key, or the console user), for records that keep who made them (a voice consent). */
  actor: { kind: string; id: string; label: string };
  /**
   * Source extensions accepted beyond the platform's setting, for a create the platform itself makes
   * (the OpenAI-compatible endpoint's audio uploads); never from a request body.
   */
  extraSourceExtensions?: readonly string[];
}

/** The outcome of a create's reference checks: what the job stores and what it costs. */
export interface Resolved<Stored extends Record<string, unknown> = Record<string, unknown>> {
  /** Input as stored on the job (defaults filled, ids assigned): the contract's `stored` schema. */
  input: Stored;
  sourceDisplayName?: string;
  credits: number;
  /**
   * Checks that cost a network round trip (S3 probes). Run after the quota check, so a request
   * refused for quota does no expensive work; they throw the spec's errors like the references do.
   */
  probe?: () => Promise<void>;
  /**
   * A record created with the job (e.g. the transcript): the writes that make it, which commit in one
   * D1 batch with the job's charge (worker/jobs/create.ts), and its removal if the job is not made.
   */
  record?: { statements(jobId: string, now: string): Promise<CreateWrite[]>; remove(): Promise<void> };
}

export interface StepResultContext {
  env: Env;
  db: Db;
  job: Job;
  step: StepSpec;
}

export type ResultSink = (ctx: StepResultContext, result: Record<string, unknown>) => Promise<StepApplied>;

/**
 * What a runner's result must satisfy before it is accepted: object keys in the job's own prefixes,
 * ids the job's own (shared/result-checks.ts). Run by the complete route while the lease still
 * stands; it throws ApiError (422 `protocolError`) to refuse, and the runner then fails the task. A
 * result its schema rejects is left to the sink, which fails the job `processing_failed`.
 */
export type ResultCheck = (ctx: StepResultContext, result: Record<string, unknown>) => Promise<void> | void;

/**
 * A call a service offers its runner steps (`POST /runner/v1/tasks/{taskId}/calls/{name}`), for work
 * only the Worker can do (its bindings: D1, the vector store). The lease was checked; the handler
 * validates `body` with its own schema (a bad body is the runner's bug: 422 protocol error).
 */
export type RunnerCall = (
  ctx: { env: Env; db: Db; job: Job; step: StepSpec; attempt: number },
  body: unknown,
) => Promise<Record<string, unknown>>;

/** An in-Worker step (executor `worker`), run by the dispatch consumer under a lease like a runner's. */
export type WorkerStepHandler = (ctx: InWorkerStepContext & { env: Env }) => Promise<Record<string, unknown>>;

export interface WorkerService<T extends ServiceName = ServiceName> {
  /** The usage meter its credits are charged to; null for a service no client can create. */
  readonly meter: QuotaMeter | null;
  /** Meters its runner calls charge while the job runs (the voices a dubbing makes), listed in the usage report after `meter`. */
  readonly runtimeMeters?: readonly QuotaMeter[];
  /**
   * What a create of this input will be charged, read from the input alone (no reference is looked
   * up): a workflow's step is quoted before the records it names exist. Absent: 1 credit, as most charge.
   */
  quote?(input: T extends ServiceType ? InputOf<T> : never, settings: Settings, plan: Plan): number;
  /** Reference checks of `POST /v1/jobs`, with the spec's messages; charge nothing. */
  resolve(ctx: CreateContext, input: T extends ServiceType ? InputOf<T> : never): Promise<Resolved<StoredInputOf<T>>>;
  /** The `GET /v1/jobs/policy` payload, for the service types the spec lists there. */
  policy?(settings: Settings): Record<string, unknown>;
  /** Result handling per step handler (`StepSpec.handler`). */
  readonly sinks: Readonly<Record<string, ResultSink>>;
  /** Checks of a runner step's result against its job, per step handler, before the sink runs. */
  readonly resultChecks?: Readonly<Record<string, ResultCheck>>;
  /** Handlers of its `worker` steps, by handler name. */
  readonly workerSteps?: Readonly<Record<string, WorkerStepHandler>>;
  /** Calls its runner steps may make, by name (e.g. `catalog.write`). */
  readonly runnerCalls?: Readonly<Record<string, RunnerCall>>;
  /** A job that ended without completing leaves its records in a final state too. */
  onEnded?(ctx: { env: Env; db: Db }, job: Job): Promise<void>;
  /** The slice of platform settings its runner steps receive as `task.settings`. */
  runnerSettings(settings: Settings): Record<string, unknown>;
  /** Its record routes, mounted under `/v1` (e.g. `/transcriptions`). */
  readonly routes?: Readonly<Record<string, Hono<AppBindings>>>;
}

export function defineWorkerService<T extends ServiceName>(service: WorkerService<T>): WorkerService<T> {
  return service;
}

/** The runner settings every service's steps receive (lease and heartbeat periods). */
export const runnerBase = (s: Settings) => ({ runner: s.runner });
