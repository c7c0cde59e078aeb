import type { WorkflowRpc } from "../../durable-objects/workflow-do";
import type { Env } from "../env";

/** The WorkflowDO of a workflow id (one object per workflow, named by its id), viewed as its class's methods (worker/jobs/stubs.ts says why). */
export function workflowStub(env: Pick<Env, "WORKFLOWS">, workflowId: string): WorkflowRpc {
  return env.WORKFLOWS.get(env.WORKFLOWS.idFromName(workflowId)) as unknown as WorkflowRpc;
}
