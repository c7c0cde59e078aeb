import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { ProgressEntry } from "../../contracts/job";
import type { LeasedTask, StorageGrant } from "../../contracts/runner-protocol";
import { S3Client } from "../../contracts/s3-client";
import { TRANSCRIPTION_STAGES } from "../../contracts/services/transcription";
import { StepFailure } from "../../contracts/step-failure";
import type { HandlerContext, StageReporter, TaskPlatform } from "../../gpu-runner/handler";
import { toStepError } from "../../contracts/step-failure";
import type { PresignedGrant } from "../../contracts/presigned";
import { openObjectStore } from "../../gpu-runner/object-store";
import { openStorage } from "../../gpu-runner/storage";
import { parseStepInput, parseTaskData } from "../../gpu-runner/step-input";
import type { z } from "zod";

/**
 * A HandlerContext for calling step handlers directly: a StageReporter that records every event in
 * memory (same started/completed/failed/skipped semantics as the runner's reporter), a private work
 * directory and an abort controller the test can pull.
 */
export type RecordedEvent = Omit<ProgressEntry, "at">;

export class RecordingReporter implements StageReporter {
  readonly events: RecordedEvent[] = [];
  /** Milliseconds since the reporter was created, one per event (for timing breakdowns). */
  readonly times: number[] = [];
  private readonly t0 = performance.now();

  async stage<T>(name: string, fn: () => Promise<T>, details?: (result: T) => Record<string, unknown>): Promise<T> {
    this.record({ stage: name, event: "started" });
    let result: T;
    try {
      result = await fn();
    } catch (err) {
      const { code, message } = toStepError(err);
      this.record({ stage: name, event: "failed", error: { code, message } });
      throw err;
    }
    this.record({ stage: name, event: "completed", ...(details ? { details: details(result) } : {}) });
    return result;
  }

  async skip(name: string, reason: string): Promise<void> {
    this.record({ stage: name, event: "skipped", details: { reason } });
  }

  async event(entry: RecordedEvent): Promise<void> {
    this.record(entry);
  }

  private record(entry: RecordedEvent): void {
    this.events.push(entry);
    this.times.push(performance.now() - this.t0);
  }

  /** Duration of each completed stage in ms, e.g. `{ probe: 41 }` (parallel chunks summed). */
  durations(): Record<string, number> {
    const open = new Map<string, number[]>();
    const out: Record<string, number> = {};
    this.events.forEach((e, i) => {
      if (e.event === "started") open.set(e.stage, [...(open.get(e.stage) ?? []), this.times[i]!]);
      if (e.event === "completed" || e.event === "failed") {
        const starts = open.get(e.stage) ?? [];
        const t = starts.shift();
        if (t !== undefined) out[e.stage] = Math.round((out[e.stage] ?? 0) + this.times[i]! - t);
      }
    });
    return out;
  }

  /** `stage:event` strings in order, e.g. `probe:failed`: compact to assert on. */
  timeline(): string[] {
    return this.events.map((e) => `${e.stage}:${e.event}`);
  }

  eventsOf(stage: string): RecordedEvent[] {
    return this.events.filter((e) => e.stage === stage);
  }
}

export interface TestContext<Input extends Record<string, unknown> = Record<string, unknown>> extends HandlerContext<string, Input> {
  report: RecordingReporter;
  abort: AbortController;
  /** Removes the work directory. */
  dispose(): Promise<void>;
}

export interface TestContextOptions {
  input: Record<string, unknown>;
  /** The step being run (default: transcription's) and earlier steps' outputs. */
  step?: LeasedTask["step"];
  outputs?: LeasedTask["outputs"];
  storage: StorageGrant | null;
  /** An `s3_presigned` job's URLs (then `storage` is null). */
  presigned?: PresignedGrant;
  settings?: Record<string, unknown>;
  cores?: number;
  /** The platform's data calls (transcripts, service calls); default: one that has nothing. */
  platform?: TaskPlatform;
}

/** A platform with no transcripts and no calls, for handlers that use neither. */
export const NO_PLATFORM: TaskPlatform = {
  transcript: async (id) => {
    throw new StepFailure("source_not_found", `transcription not found: ${id}`, false);
  },
  call: async (name) => {
    throw new Error(`no service call ${name} in this test`);
  },
};

export function storageGrant(
  s3: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string },
  bucket: string,
): StorageGrant {
  return {
    connectionId: "stc_test",
    endpoint: s3.endpoint,
    region: s3.region,
    forcePathStyle: true,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    bucket,
  };
}

/** An S3 client on a local S3 server, as the handler's `openStorage()` would make for `storageGrant`. */
export function localS3Client(s3: { endpoint: string; region: string; accessKeyId: string; secretAccessKey: string }): S3Client {
  const { endpoint, region, accessKeyId, secretAccessKey } = s3;
  return new S3Client({ endpoint, region, forcePathStyle: true, accessKeyId, secretAccessKey });
}

/**
 * With `stored` (the contract's stored schema of the step's service), `ctx.input` is typed as that
 * service's handler reads it, so a handler typed by its contract takes the context as it is.
 */
export async function makeHandlerContext(opts: TestContextOptions): Promise<TestContext>;
export async function makeHandlerContext<Input extends Record<string, unknown>>(
  opts: TestContextOptions & { stored: z.ZodType<Input> },
): Promise<TestContext<Input>>;
export async function makeHandlerContext(opts: TestContextOptions & { stored?: z.ZodType<Record<string, unknown>> }): Promise<TestContext> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), "handler-test-"));
  const abort = new AbortController();
  const task: LeasedTask = {
    taskId: "tsk_test",
    leaseToken: "lease-test",
    leaseUntil: new Date(Date.now() + 60_000).toISOString(),
    heartbeatIntervalSec: 15,
    outputs: opts.outputs ?? {},
    scratchPrefix: null,
    jobId: "job_test",
    attempt: 0,
    serviceType: "transcription",
    step: opts.step ?? {
      service: "transcription",
      name: "transcribe",
      executor: "runner",
      handler: "transcription",
      stages: [...TRANSCRIPTION_STAGES],
      params: {},
    },
    input: opts.input,
    storage: opts.storage,
    ...(opts.presigned ? { presigned: opts.presigned } : {}),
    settings: opts.settings ?? {},
  };
  // Parsed on first read, as the runner parses before the handler runs: a test of bad input sees
  // the handler fail `invalid_input` having touched nothing, as a real task would.
  let data: ReturnType<typeof parseTaskData> | undefined;
  const parsed = () => (data ??= parseTaskData(task));
  let typed: Record<string, unknown> | undefined;
  return {
    task,
    get input() {
      // `stored` is the schema parseTaskData took from the contract of `step.service`: the same parse, typed.
      return opts.stored ? (typed ??= parseStepInput(opts.stored, task.input, `${task.step.service} input`)) : parsed().input;
    },
    get outputs() {
      return parsed().outputs;
    },
    report: new RecordingReporter(),
    workDir,
    signal: abort.signal,
    cores: opts.cores ?? 2,
    // The test S3 server is on loopback, as on a local stack.
    openStorage: () => openStorage(task.storage, { allowLoopback: true }),
    openObjects: (keys) => openObjectStore(task, { allowLoopback: true }, keys),
    platform: opts.platform ?? NO_PLATFORM,
    abort,
    dispose: () => rm(workDir, { recursive: true, force: true }),
  };
}
