import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WaitTimeoutError, type CreateJobRequest, type Job, type JobFilters, type JobProgressView } from "../../client";
import { SERVICE_TYPES } from "../../../contracts/service-types";
import { isConsoleSession } from "../context";
import { formatJob, formatJobTable } from "../output";
import { progressNotifier } from "./progress-notifier";
import { guarded, toolResult } from "./results";
import {
  JobIdInput,
  JobOutput,
  JobProgressOutput,
  ListJobsInput,
  ListJobsOutput,
  SubmitJobInput,
  WaitForJobInput,
  WaitForJobOutput,
} from "./schemas";
import type { ToolContext } from "./tool-context";

/** `submit_job`, `wait_for_job`, `get_job`, `list_jobs`, `cancel_job`: the jobs API through the typed client. */

/** One line of a job's state, as a progress notification says it. */
export function jobLine(job: Job): string {
  const stage = job.currentStage ? ` · ${job.currentStage}` : "";
  const attempt = job.attemptCount > 0 ? ` · attempt ${job.attemptCount + 1}` : "";
  return `${job.jobId} ${job.status}${stage}${attempt}`;
}

function timelineText(view: JobProgressView): string {
  if (view.progress.length === 0) return "no stage has started\n";
  return (
    view.progress.map((e) => `  ${e.at}  ${e.stage} ${e.event}${e.error ? `: ${e.error.code}: ${e.error.message}` : ""}`).join("\n") + "\n"
  );
}

export function registerJobTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "submit_job",
    {
      title: "Submit a job",
      description: `Create a media-jobs job of any service type (${SERVICE_TYPES.join(", ")}). Answers at once with the job (status pending or queued); use wait_for_job to wait for its result.`,
      inputSchema: SubmitJobInput,
      outputSchema: JobOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ job: body, idempotencyKey }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        // The union is built from the service index, so zod infers it loosely; CreateJobRequest is the
        // same union spelled per service type (as worker/jobs/create.ts reads it).
        const job = await mj.jobs.create(body as CreateJobRequest, idempotencyKey ? { idempotencyKey } : {});
        return toolResult(`submitted ${job.jobId}; wait for it with wait_for_job\n${formatJob(job)}`, { job });
      }),
  );

  server.registerTool(
    "wait_for_job",
    {
      title: "Wait for a job",
      description:
        "Wait until a job completes, fails or is cancelled, up to timeoutSeconds; answers with the job (its resultSummary, or its error). A job still running at the timeout is answered with timedOut: true: call again to keep waiting. Sends progress notifications when the request carries a progressToken.",
      inputSchema: WaitForJobInput,
      outputSchema: WaitForJobOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ jobId, timeoutSeconds }, extra) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const progress = progressNotifier(extra, ctx.heartbeatMs);
        try {
          const job = await mj.jobs.wait(jobId, {
            intervalMs: ctx.pollIntervalMs,
            timeoutMs: timeoutSeconds * 1000,
            signal: extra.signal,
            onUpdate: (j) => progress.update(jobLine(j)),
          });
          return toolResult(formatJob(job), { job, timedOut: false });
        } catch (err) {
          if (!(err instanceof WaitTimeoutError)) throw err;
          const text = `still ${err.job.status} after ${timeoutSeconds} s: call wait_for_job again to keep waiting\n${formatJob(err.job)}`;
          return toolResult(text, { job: err.job, timedOut: true });
        } finally {
          progress.stop();
        }
      }),
  );

  server.registerTool(
    "get_job",
    {
      title: "Read a job and its progress",
      description:
        "A job's status, the stage in flight, attempts, resultSummary or error; with a console session (sk_con_) key also its stage timeline (each stage started, completed or failed, and earlier attempts).",
      inputSchema: JobIdInput,
      outputSchema: JobProgressOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ jobId }) =>
      guarded(async () => {
        const { mj, key } = await ctx.connect();
        const job = await mj.jobs.get(jobId);
        // The timeline route answers console sessions only (docs/api.md): a project key is not asked, so it sees no 403.
        if (!isConsoleSession(key)) return toolResult(formatJob(job), { job, timeline: null });
        const view = await mj.jobs.progress(jobId);
        const timeline = { currentStage: view.currentStage, progress: view.progress, attemptHistory: view.attemptHistory };
        return toolResult(`${formatJob(job)}stages:\n${timelineText(view)}`, { job, timeline });
      }),
  );

  server.registerTool(
    "list_jobs",
    {
      title: "List jobs",
      description:
        "The project's jobs, newest first by default, one page at a time, filtered by status, service type, customer ref or input.",
      inputSchema: ListJobsInput,
      outputSchema: ListJobsOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ page, limit, ...filters }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const res = await mj.jobs.list(filters satisfies JobFilters, {
          ...(page !== undefined ? { page } : {}),
          ...(limit !== undefined ? { limit } : {}),
        });
        const p = res.pagination;
        const text = `${formatJobTable(res.data)}page ${p.page} of ${p.totalPages} (${p.total} jobs)\n`;
        return toolResult(text, { jobs: res.data, pagination: p });
      }),
  );

  server.registerTool(
    "cancel_job",
    {
      title: "Cancel a job",
      description: "Cancel a job: a queued job at once, a processing one after its current stage (status cancelling, then cancelled).",
      inputSchema: JobIdInput,
      outputSchema: JobOutput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ jobId }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const job = await mj.jobs.cancel(jobId);
        return toolResult(formatJob(job), { job });
      }),
  );
}
