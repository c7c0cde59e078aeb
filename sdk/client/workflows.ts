import { isWorkflowEnded, type CreateWorkflowRequest, type Workflow, type WorkflowStatus } from "../../contracts/workflows";
import { WorkflowWaitTimeoutError } from "./errors";
import type { CreateOptions } from "./jobs";
import { pollUntil, type PollOptions } from "./polling";
import type { Transport } from "./transport";
import type { PageRequest, Pagination } from "./types";

export interface WorkflowFilters {
  statuses?: readonly WorkflowStatus[];
  presetId?: string;
}

export interface WorkflowPage {
  data: Workflow[];
  pagination: Pagination;
}

/** A step's status moving is a change even when the workflow record itself did not move (its running steps are read live). */
const stateOf = (w: Workflow) => `${w.status} ${w.steps.map((s) => `${s.id}:${s.status}:${s.jobId ?? ""}`).join(",")}`;

/** `POST /v1/workflows`, `GET /v1/workflows[/{workflowId}]`, cancel, and a wait (docs/api.md, "Workflows"). */
export class WorkflowsResource {
  constructor(private readonly t: Transport) {}

  /** Creates a workflow from steps or a preset; the Idempotency-Key makes it safe to retry, as `jobs.create`. */
  async create(input: CreateWorkflowRequest, options: CreateOptions = {}): Promise<Workflow> {
    const key = options.idempotencyKey ?? crypto.randomUUID();
    const res = await this.t.call<Workflow, "createWorkflow">("createWorkflow", {
      body: input,
      headers: { "Idempotency-Key": key },
      signal: options.signal,
    });
    return res.data;
  }

  async get(workflowId: string, options: { signal?: AbortSignal } = {}): Promise<Workflow> {
    return (await this.t.call<Workflow, "getWorkflow">("getWorkflow", { params: { workflowId }, signal: options.signal })).data;
  }

  async list(filters: WorkflowFilters = {}, page: PageRequest = {}, options: { signal?: AbortSignal } = {}): Promise<WorkflowPage> {
    const res = await this.t.call<Workflow[], "listWorkflows">("listWorkflows", {
      query: { statuses: filters.statuses?.join(","), presetId: filters.presetId, page: page.page, limit: page.limit },
      signal: options.signal,
    });
    const pagination = res.metadata["pagination"] as Pagination | undefined;
    return {
      data: res.data,
      pagination: pagination ?? { page: page.page ?? 1, limit: page.limit ?? 20, total: res.data.length, totalPages: 1 },
    };
  }

  /** Cancels the workflow and its jobs. */
  async cancel(workflowId: string, options: { signal?: AbortSignal } = {}): Promise<Workflow> {
    return (await this.t.call<Workflow, "cancelWorkflow">("cancelWorkflow", { params: { workflowId }, signal: options.signal })).data;
  }

  /**
   * Polls until the workflow is `completed`, `failed` or `cancelled` and returns it (a failed one is
   * returned, not thrown), as `jobs.wait` polls a job; `onUpdate` sees each change of the workflow or
   * of a step. After `timeoutMs` it throws `WorkflowWaitTimeoutError` with the last state seen.
   */
  async wait(workflowId: string, options: PollOptions<Workflow> = {}): Promise<Workflow> {
    const { value, timedOut } = await pollUntil(
      {
        read: (signal) => this.get(workflowId, signal ? { signal } : {}),
        ended: (w) => isWorkflowEnded(w.status),
        changed: (prev, next) => stateOf(prev) !== stateOf(next),
        label: `workflow ${workflowId}`,
        sleep: this.t.sleep,
      },
      options,
    );
    if (timedOut) throw new WorkflowWaitTimeoutError(value, options.timeoutMs ?? 0);
    return value;
  }
}
