import type { LeasedTask } from "../contracts/runner-protocol";
import type { S3Client } from "../contracts/s3-client";
import type { ObjectStore } from "./object-store";
import type { TranscriptDocument } from "../contracts/runner-protocol";
import type { z } from "zod";
import type { StageReporter } from "../contracts/step-kit";

/** Earlier steps' outputs by step name, as a step reads them (`OutputsOf<service>` in the contracts). */
export type StepOutputs = Readonly<Record<string, Record<string, unknown> | undefined>>;

export interface HandlerContext<Stage extends string = string, Input = Record<string, unknown>, Outputs = StepOutputs> {
  task: LeasedTask;
  /** The job's stored input, parsed once by the contract's `stored` schema before the handler runs. */
  input: Input;
  /** Earlier steps' outputs, each parsed by its step's `output` schema. */
  outputs: Outputs;
  /** Typed by the step's contract: a handler can only report the stages its step declares. */
  report: StageReporter<Stage>;
  /** A fresh directory for this task; the runner deletes it afterwards, whatever happens. */
  workDir: string;
  /**
   * Aborted when the lease is lost or the runner is shutting down hard. Every child process the
   * handler starts must be tied to it (`spawnChild`/`runChild` in child-process.ts, or node's
   * `spawn(..., { signal })`), so aborting the work also kills ffmpeg, engines and the like.
   */
  signal: AbortSignal;
  /** Cores this handler may use for parallel work. */
  cores: number;
  /** The platform's data calls for this task: the transcripts its job names, its service's own calls. */
  platform: TaskPlatform;
  /** The job's bucket: the only way a handler reaches it (the endpoint's addresses are checked first, gpu-runner/storage.ts). */
  openStorage(): Promise<S3Client>;
  /**
   * The job's source and outputs by name, through its presigned URLs or its bucket (gpu-runner/object-store.ts);
   * `keys` maps names to object keys for a bucket job (ignored for a presigned one).
   */
  openObjects(keys: Readonly<Record<string, string>>): Promise<ObjectStore>;
}

/**
 * What a step may ask the platform while it holds its lease. A transcript that is gone rejects with
 * a `source_not_found` StepFailure (not retryable); a lost lease with LeaseLost.
 */
export interface TaskPlatform {
  transcript(textSourceId: string): Promise<TranscriptDocument>;
  call<T>(name: string, body: unknown, schema: z.ZodType<T>): Promise<T>;
}

/** A step handler returns the step's result, sent to the server as `result` on complete. */
export type StepHandler<Stage extends string = string, Input = Record<string, unknown>, Outputs = StepOutputs> = (
  ctx: HandlerContext<Stage, Input, Outputs>,
) => Promise<Record<string, unknown>>;
