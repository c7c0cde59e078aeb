import type { StepSpec } from "../contracts/pipelines";
import type { JobRpc } from "../durable-objects/job-do";
import type { DispatchMessage } from "../durable-objects/messages";
import { runWorkerStep, type InWorkerStep } from "./worker-steps";
import { exponentialStep } from "../contracts/retry";

/** What the consumer needs: the job's Durable Object, and the in-Worker handler of a step. */
export interface DispatchDeps {
  job(jobId: string): JobRpc;
  workerStep(step: StepSpec): InWorkerStep | null;
}

/**
 * Dispatch: each message asks the job's Durable Object to start one step. The DO decides (and
 * ignores duplicates); runner steps become rows in the runner lane, Worker steps run right here.
 */
export async function handleDispatchBatch(batch: MessageBatch<DispatchMessage>, deps: DispatchDeps): Promise<void> {
  for (const msg of batch.messages) {
    try {
      const stub = deps.job(msg.body.jobId);
      const out = await stub.dispatch(msg.body.attempt, msg.body.stepIndex);
      if (out.action === "run_in_worker") await runWorkerStep(stub, deps.workerStep(out.step), out);
      msg.ack();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "dispatch failed", jobId: msg.body.jobId, error: String(err) }));
      msg.retry({ delaySeconds: exponentialStep(msg.attempts, 2, 60) });
    }
  }
}
