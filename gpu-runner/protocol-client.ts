import { z } from "zod";
import { withRetry } from "../contracts/retry";
import { LeaseLost } from "../contracts/step-kit";
import {
  CompleteRequestSchema,
  EventsRequestSchema,
  EventsResponseSchema,
  OkResponseSchema,
  FailRequestSchema,
  HeartbeatResponseSchema,
  LeaseRequestSchema,
  LeaseResponseSchema,
  LeaseTokenBodySchema,
  ServiceCallRequestSchema,
  TranscriptDocumentSchema,
  TranscriptRequestSchema,
  type EventsRequest,
  type EventsResponse,
  type HeartbeatResponse,
  type LeaseRequest,
  type LeasedTask,
  type TranscriptDocument,
} from "../contracts/runner-protocol";

/**
 * Typed client for the runner protocol (`/runner/v1/…`). Every call is a JSON POST with the
 * runner token; answers come in the `{ data, metadata }` / `{ data: null, error }` envelope and
 * `data` is parsed with the contract's zod schemas.
 *
 * Network errors, timeouts, 5xx and 429 are retried with capped exponential backoff, full jitter
 * and Retry-After (contracts/retry.ts); other 4xx are not (retrying cannot change them). A 409 `leaseLost` becomes a LeaseLost,
 * and so does a 401 on a task's call (the runner's token was revoked): the task's work must stop and
 * nothing more may be reported for it.
 *
 * Delivery is at-least-once: a call whose answer was lost is sent again, so the server must
 * treat a repeated events/complete/fail/cancelled/release with the same lease token as a no-op.
 */

/** The events route answers with the cancel flag (not in contracts/runner-protocol.ts yet). */
/** complete / fail / cancelled / release answer `{ ok: true }`. */

const ErrorEnvelopeSchema = z.object({
  data: z.null().optional(),
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.unknown()).optional(),
  }),
});
const DataEnvelopeSchema = z.object({ data: z.unknown(), metadata: z.unknown().optional() });

export type FailError = z.infer<typeof FailRequestSchema>["error"];
export type ProgressEventInput = EventsRequest["events"][number];

/** A non-retryable answer (4xx other than leaseLost), or a retryable one after the last retry. */
export class ProtocolError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown[] = [],
  ) {
    super(message);
    this.name = "ProtocolError";
  }
}

/** The server could not be reached (network error or timeout) after every retry. */
export class ProtocolNetworkError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ProtocolNetworkError";
  }
}

export interface ProtocolClientOptions {
  baseUrl: string;
  token: string;
  /** Per-request timeout. Default 15 s. */
  timeoutMs?: number;
  /** Retries after the first attempt for retryable failures. Default 4. */
  retries?: number;
  /** First retry delay (full jitter up to base·2^n, capped by retryMaxMs). Default 250 ms. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  fetch?: typeof fetch;
}

export interface CallOptions {
  /** Aborts the call (and its retries) early. */
  signal?: AbortSignal;
  /** Overrides the client's retry count for this call. */
  retries?: number;
  /** Stops further retries (and the wait before them) without cutting off a request in flight. */
  retrySignal?: AbortSignal;
  /** Overrides the client's per-request timeout for this call. */
  timeoutMs?: number;
}

class RetryableStatus extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The Retry-After header, as sent. */
    readonly retryAfter: string | null,
  ) {
    super(message);
  }
}

export class ProtocolClient {
  private readonly baseUrl: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly retries: number;
  private readonly retryBaseMs: number;
  private readonly retryMaxMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: ProtocolClientOptions) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.token = opts.token;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.retries = opts.retries ?? 4;
    this.retryBaseMs = opts.retryBaseMs ?? 250;
    this.retryMaxMs = opts.retryMaxMs ?? 5_000;
    this.fetchImpl = opts.fetch ?? globalThis.fetch;
  }

  /** Leases the next task for these handlers and lanes, or null when every lane is empty. */
  async lease(req: LeaseRequest, opts?: CallOptions): Promise<LeasedTask | null> {
    const body = LeaseRequestSchema.parse(req);
    // A long poll is held by the server up to waitSeconds: the request may take that much longer.
    const timeoutMs = (opts?.timeoutMs ?? this.timeoutMs) + body.waitSeconds * 1000;
    // Plain polling sends no waitSeconds, so the request reads as it did before long polls existed.
    const { waitSeconds, ...plain } = body;
    const data = await this.call("/runner/v1/lease", waitSeconds > 0 ? body : plain, LeaseResponseSchema, undefined, {
      ...opts,
      timeoutMs,
    });
    return data.task;
  }

  heartbeat(taskId: string, leaseToken: string, opts?: CallOptions): Promise<HeartbeatResponse> {
    return this.taskCall(taskId, "heartbeat", LeaseTokenBodySchema.parse({ leaseToken }), HeartbeatResponseSchema, opts);
  }

  events(taskId: string, leaseToken: string, events: ProgressEventInput[], opts?: CallOptions): Promise<EventsResponse> {
    const body = EventsRequestSchema.parse({ leaseToken, events });
    return this.taskCall(taskId, "events", body, EventsResponseSchema, opts);
  }

  async complete(taskId: string, leaseToken: string, result: Record<string, unknown>, opts?: CallOptions): Promise<void> {
    await this.taskCall(taskId, "complete", CompleteRequestSchema.parse({ leaseToken, result }), OkResponseSchema, opts);
  }

  async fail(taskId: string, leaseToken: string, error: FailError, opts?: CallOptions): Promise<void> {
    await this.taskCall(taskId, "fail", FailRequestSchema.parse({ leaseToken, error }), OkResponseSchema, opts);
  }

  /** Acknowledges a graceful cancel: the current stage ended and the task stopped. */
  async cancelled(taskId: string, leaseToken: string, opts?: CallOptions): Promise<void> {
    await this.taskCall(taskId, "cancelled", LeaseTokenBodySchema.parse({ leaseToken }), OkResponseSchema, opts);
  }

  /** Gives the task back to its lane without counting an attempt (shutdown). */
  async release(taskId: string, leaseToken: string, opts?: CallOptions): Promise<void> {
    await this.taskCall(taskId, "release", LeaseTokenBodySchema.parse({ leaseToken }), OkResponseSchema, opts);
  }

  /** A transcript the task's job names (its current segments, without word timings, and its visual chunks). */
  transcript(taskId: string, leaseToken: string, textSourceId: string, opts?: CallOptions): Promise<TranscriptDocument> {
    const body = TranscriptRequestSchema.parse({ leaseToken, textSourceId });
    return this.taskCall(taskId, "transcript", body, TranscriptDocumentSchema, opts);
  }

  /** One of the job's service's own calls (e.g. the indexer's `catalog.write`). */
  serviceCall<T>(taskId: string, leaseToken: string, name: string, body: unknown, schema: z.ZodType<T>, opts?: CallOptions): Promise<T> {
    return this.taskCall(taskId, `calls/${encodeURIComponent(name)}`, ServiceCallRequestSchema.parse({ leaseToken, body }), schema, opts);
  }

  private taskCall<T>(taskId: string, action: string, body: unknown, schema: z.ZodType<T>, opts: CallOptions | undefined): Promise<T> {
    return this.call(`/runner/v1/tasks/${encodeURIComponent(taskId)}/${action}`, body, schema, taskId, opts);
  }

  private async call<T>(
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    taskId: string | undefined,
    opts: CallOptions | undefined,
  ): Promise<T> {
    try {
      return await withRetry(() => this.once(path, body, schema, taskId, opts?.signal, opts?.timeoutMs ?? this.timeoutMs), {
        retries: opts?.retries ?? this.retries,
        baseMs: this.retryBaseMs,
        maxMs: this.retryMaxMs,
        // Full jitter: many runners polling one Worker should not retry in step.
        jitter: "full",
        signal: opts?.signal,
        stopSignal: opts?.retrySignal,
        shouldRetry: (err) => err instanceof RetryableStatus || err instanceof ProtocolNetworkError,
        retryAfter: (err) => (err instanceof RetryableStatus ? err.retryAfter : undefined),
      });
    } catch (err) {
      throw this.finalError(err);
    }
  }

  private finalError(err: unknown): unknown {
    if (err instanceof RetryableStatus) return new ProtocolError(err.status, err.code, err.message);
    return err;
  }

  private async once<T>(
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
    taskId: string | undefined,
    signal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let res: Response;
    let text: string;
    try {
      res = await this.fetchImpl(this.baseUrl + path, {
        method: "POST",
        headers: {
          authorization: `Bearer ${this.token}`,
          "content-type": "application/json",
          accept: "application/json",
        },
        body: JSON.stringify(body),
        signal: combined,
      });
      text = await res.text();
    } catch (err) {
      if (signal?.aborted) throw signal.reason ?? err;
      const what = timeout.aborted ? `timed out after ${timeoutMs} ms` : describe(err);
      throw new ProtocolNetworkError(`POST ${path}: ${what}`, { cause: err });
    }

    let json: unknown;
    try {
      json = text === "" ? undefined : JSON.parse(text);
    } catch {
      json = undefined;
    }

    if (!res.ok) {
      const env = ErrorEnvelopeSchema.safeParse(json);
      const code = env.success ? env.data.error.code : `http_${res.status}`;
      const message = env.success ? env.data.error.message : `POST ${path} answered ${res.status}`;
      if (res.status === 409 && code === "leaseLost" && taskId !== undefined) throw new LeaseLost(taskId, message);
      // The runner's token was revoked (or never valid): nothing it reports on the task will be
      // accepted any more, so its work stops now rather than at the final report; the lease runs out
      // and the attempt is retried on another runner.
      if (res.status === 401 && taskId !== undefined) throw new LeaseLost(taskId, `the runner token was refused: ${message}`);
      if (res.status >= 500 || res.status === 429) {
        throw new RetryableStatus(res.status, code, message, res.headers.get("retry-after"));
      }
      throw new ProtocolError(res.status, code, message, env.success ? (env.data.error.details ?? []) : []);
    }

    const env = DataEnvelopeSchema.safeParse(json);
    if (!env.success) throw new ProtocolError(res.status, "bad_response", `POST ${path}: response is not a { data } envelope`);
    const data = schema.safeParse(env.data.data);
    if (!data.success) {
      throw new ProtocolError(res.status, "bad_response", `POST ${path}: unexpected data: ${z.prettifyError(data.error)}`);
    }
    return data.data;
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause;
    return cause instanceof Error ? `${err.message} (${cause.message})` : err.message;
  }
  return String(err);
}
