import type { Env } from "../worker/env";
import { jobStub } from "../worker/jobs/stubs";
import type { DispatchMessage } from "./messages";
import { runWorkerStep } from "./worker-steps";

/**
 * Dispatch: each message asks the job's Durable Object to start one step. The DO decides (and
 * ignores duplicates); runner steps become rows in the runner lane, Worker steps run right here.
 */
export async function handleDispatchBatch(batch: MessageBatch<DispatchMessage>, env: Env): Promise<void> {
  for (const msg of batch.messages) {
    try {
      const out = await jobStub(env, msg.body.jobId).dispatch(msg.body.attempt, msg.body.stepIndex);
      if (out.action === "run_in_worker") await runWorkerStep(env, out);
      msg.ack();
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "dispatch failed", jobId: msg.body.jobId, error: String(err) }));
      msg.retry({ delaySeconds: Math.min(60, 2 ** msg.attempts) });
    }
  }
}
