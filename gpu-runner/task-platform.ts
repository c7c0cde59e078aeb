import type { LeasedTask } from "../contracts/runner-protocol";
import { StepFailure } from "../contracts/step-failure";
import type { TaskPlatform } from "./handler";
import { ProtocolError, type ProtocolClient } from "./protocol-client";

/**
 * A task's data calls through the runner protocol, bound to its lease. A transcript the Worker no
 * longer has (404) becomes `source_not_found`, which no retry can change; everything else keeps the
 * protocol client's meaning (network trouble retried there, a lost lease stops the task).
 */
export function taskPlatform(client: ProtocolClient, task: LeasedTask, signal: AbortSignal): TaskPlatform {
  return {
    transcript: (id) =>
      client.transcript(task.taskId, task.leaseToken, id, { signal }).catch((err: unknown) => {
        if (err instanceof ProtocolError && err.status === 404) throw new StepFailure("source_not_found", err.message, false);
        throw err;
      }),
    call: (name, body, schema) => client.serviceCall(task.taskId, task.leaseToken, name, body, schema, { signal }),
  };
}
