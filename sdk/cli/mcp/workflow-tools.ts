import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WorkflowWaitTimeoutError, type CreateWorkflowRequest, type Workflow } from "../../client";
import { progressNotifier } from "./progress-notifier";
import { guarded, toolResult } from "./results";
import { SubmitWorkflowInput, WaitForWorkflowInput, WaitForWorkflowOutput, WorkflowIdInput, WorkflowOutput } from "./schemas";
import type { ToolContext } from "./tool-context";

/** `submit_workflow`, `wait_for_workflow`, `get_workflow`: workflows (docs/api.md, "Workflows") through the typed client. */

/** One line of a workflow's state: its status and each step's, as a progress notification says it. */
export function workflowLine(w: Workflow): string {
  return `${w.workflowId} ${w.status} · ${w.steps.map((s) => `${s.id} ${s.status}`).join(", ")}`;
}

/** The workflow and a row per step: its service, status, job and error. */
export function formatWorkflow(w: Workflow): string {
  const head = `${w.workflowId}  ${w.status}${w.presetId ? `  preset ${w.presetId}` : ""}`;
  const widest = (cell: (s: Workflow["steps"][number]) => string) => Math.max(...w.steps.map((s) => cell(s).length));
  const [id, service, status] = [widest((s) => s.id), widest((s) => s.serviceType), widest((s) => s.status)];
  const rows = w.steps.map((s) => {
    const error = s.error ? `  ${s.error.code}: ${s.error.message}` : "";
    return `  ${s.id.padEnd(id)}  ${s.serviceType.padEnd(service)}  ${s.status.padEnd(status)}  ${s.jobId ?? "-"}${error}`;
  });
  const error = w.error ? [`  error: ${w.error.code}: ${w.error.message}`] : [];
  return [head, ...rows, ...error].join("\n") + "\n";
}

export function registerWorkflowTools(server: McpServer, ctx: ToolContext): void {
  server.registerTool(
    "submit_workflow",
    {
      title: "Submit a workflow",
      description:
        "Start a workflow: steps that are job bodies with ids, each created as a job when the steps it dependsOn complete, a step's result named in a later step as {{stepId.field}} (e.g. {{transcribe.textSourceId}}); or a saved preset by presetId with its variables. Answers at once; use wait_for_workflow to wait for it, get_job on a step's jobId for that step's result.",
      inputSchema: SubmitWorkflowInput,
      outputSchema: WorkflowOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    ({ workflow: body, idempotencyKey }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const workflow = await mj.workflows.create(body satisfies CreateWorkflowRequest, idempotencyKey ? { idempotencyKey } : {});
        return toolResult(`submitted ${workflow.workflowId}; wait for it with wait_for_workflow\n${formatWorkflow(workflow)}`, {
          workflow,
        });
      }),
  );

  server.registerTool(
    "wait_for_workflow",
    {
      title: "Wait for a workflow",
      description:
        "Wait until a workflow completes, fails or is cancelled, up to timeoutSeconds; answers with the workflow, each step's status, job id and error. A workflow still running at the timeout is answered with timedOut: true: call again to keep waiting. Sends progress notifications when the request carries a progressToken.",
      inputSchema: WaitForWorkflowInput,
      outputSchema: WaitForWorkflowOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ workflowId, timeoutSeconds }, extra) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const progress = progressNotifier(extra, ctx.heartbeatMs);
        try {
          const workflow = await mj.workflows.wait(workflowId, {
            intervalMs: ctx.pollIntervalMs,
            timeoutMs: timeoutSeconds * 1000,
            signal: extra.signal,
            onUpdate: (w) => progress.update(workflowLine(w)),
          });
          return toolResult(formatWorkflow(workflow), { workflow, timedOut: false });
        } catch (err) {
          if (!(err instanceof WorkflowWaitTimeoutError)) throw err;
          const text = `still ${err.workflow.status} after ${timeoutSeconds} s: call wait_for_workflow again to keep waiting\n${formatWorkflow(err.workflow)}`;
          return toolResult(text, { workflow: err.workflow, timedOut: true });
        } finally {
          progress.stop();
        }
      }),
  );

  server.registerTool(
    "get_workflow",
    {
      title: "Read a workflow",
      description: "A workflow's status and its steps: each step's status, job id and error.",
      inputSchema: WorkflowIdInput,
      outputSchema: WorkflowOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    ({ workflowId }) =>
      guarded(async () => {
        const { mj } = await ctx.connect();
        const workflow = await mj.workflows.get(workflowId);
        return toolResult(formatWorkflow(workflow), { workflow });
      }),
  );
}
