import type { JobRpc } from "../../durable-objects/job-do";
import type { Env } from "../env";

/**
 * One Durable Object per job, addressed by the job id. The stub is viewed as the class's own
 * method types: the generated RPC types wrap unions in a way TypeScript cannot narrow, and our
 * results are plain structured-clonable data, so the class signatures are exactly what arrives.
 */
export function jobStub(env: Pick<Env, "JOBS">, jobId: string): JobRpc {
  return env.JOBS.get(env.JOBS.idFromName(jobId)) as unknown as JobRpc;
}
