import type { CreateJobRequest, Job, JobStatus } from "./types";
import { WaitTimeoutError } from "./errors";
import { pollUntil, type PollOptions } from "./polling";
import type { Transport } from "./transport";
import { isTerminal } from "../../contracts/service-types";
import type { JobFilters, JobPage, JobProgressView, PageRequest, Pagination, WebhookDelivery } from "./types";

/** The SDK's name for the one rule (contracts/service-types.ts): a job in this status changes no more. */
export const isTerminalStatus = (s: JobStatus): boolean => isTerminal(s);

export interface CreateOptions {
  /** Sent as `Idempotency-Key`. Default: a fresh `crypto.randomUUID()` per `create` call, reused by its retries. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export type WaitOptions = PollOptions<Job>;

/** `POST /v1/jobs`, `GET /v1/jobs[/{jobId}]`, cancel, and the polling helpers. */
export class JobsResource {
  constructor(private readonly t: Transport) {}

  /**
   * Creates a job. The Idempotency-Key makes the call safe to retry: the transport's own retries
   * (5xx, lost connection) and yours, when you pass the same key, never create a second job.
   */
  async create(input: CreateJobRequest, options: CreateOptions = {}): Promise<Job> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const res = await this.t.call<Job, "createJob">("createJob", {
      body: input,
      headers: { "Idempotency-Key": key },
      signal: options.signal,
    });
    return res.data;
  }

  async get(jobId: string, options: { signal?: AbortSignal } = {}): Promise<Job> {
    return (await this.t.call<Job, "getJob">("getJob", { params: { jobId }, signal: options.signal })).data;
  }

  async list(filters: JobFilters = {}, page: PageRequest = {}, options: { signal?: AbortSignal } = {}): Promise<JobPage> {
    const res = await this.t.call<Job[], "listJobs">("listJobs", {
      query: {
        ...filters,
        statuses: filters.statuses?.join(","),
        serviceTypes: filters.serviceTypes?.join(","),
        page: page.page,
        limit: page.limit,
      },
      signal: options.signal,
    });
    const pagination = res.metadata["pagination"] as Pagination | undefined;
    return {
      data: res.data,
      pagination: pagination ?? { page: page.page ?? 1, limit: page.limit ?? 20, total: res.data.length, totalPages: 1 },
    };
  }

  /** Every job matching `filters`, page by page (`limit` per request, default 100). */
  async *listAll(filters: JobFilters = {}, options: { limit?: number; signal?: AbortSignal } = {}): AsyncGenerator<Job> {
    for (let page = 1; ; page++) {
      const res = await this.list(filters, { page, limit: options.limit ?? 100 }, options);
      yield* res.data;
      if (res.data.length === 0 || page >= res.pagination.totalPages) return;
    }
  }

  async cancel(jobId: string, options: { signal?: AbortSignal } = {}): Promise<Job> {
    return (await this.t.call<Job, "cancelJob">("cancelJob", { params: { jobId }, signal: options.signal })).data;
  }

  /** Stage timeline. Console sessions only (`sk_con_`); project keys get 403 `forbidden`. */
  async progress(jobId: string, options: { signal?: AbortSignal } = {}): Promise<JobProgressView> {
    return (await this.t.call<JobProgressView, "getJobProgress">("getJobProgress", { params: { jobId }, signal: options.signal })).data;
  }

  async webhookDeliveries(jobId: string, options: { signal?: AbortSignal } = {}): Promise<WebhookDelivery[]> {
    const res = await this.t.call<WebhookDelivery[], "listWebhookDeliveries">("listWebhookDeliveries", {
      params: { jobId },
      signal: options.signal,
    });
    return res.data;
  }

  /**
   * Polls until the job is `completed`, `failed` or `cancelled` (it keeps polling through
   * `cancelling`) and returns it; a failed job is returned, not thrown. The interval starts at
   * `intervalMs`, grows while nothing changes and drops back when the job moves. A 429 or 503 waits
   * for its `Retry-After` (or the current interval) and polls again; other errors are thrown.
   */
  async wait(jobId: string, options: WaitOptions = {}): Promise<Job> {
    const { value, timedOut } = await pollUntil(
      {
        read: (signal) => this.get(jobId, signal ? { signal } : {}),
        ended: (job) => isTerminalStatus(job.status),
        changed: (prev, next) => next.updatedAt !== prev.updatedAt || next.status !== prev.status,
        label: `job ${jobId}`,
        sleep: this.t.sleep,
      },
      options,
    );
    if (timedOut) throw new WaitTimeoutError(value, options.timeoutMs ?? 0);
    return value;
  }

  /** `create`, then `wait`. */
  async submitAndWait(input: CreateJobRequest, options: CreateOptions & WaitOptions = {}): Promise<Job> {
    const job = await this.create(input, options);
    return this.wait(job.jobId, options);
  }
}
