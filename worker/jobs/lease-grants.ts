import type { Job } from "../../contracts/job";
import type { PresignedGrant } from "../../contracts/presigned";
import type { StorageGrant } from "../../contracts/runner-protocol";
import { getDb } from "../db/client";
import type { Env } from "../env";
import { StorageConnectionInactive } from "../storage/connections";
import { presignedGrantFor } from "../storage/presigned";
import { storageGrantFor } from "../storage/scratch";
import { jobStub } from "./stubs";

/**
 * What a leased task carries to reach the customer's storage: the bucket grant (connection
 * credentials) and the presigned URLs. Null when the job may no longer run: its connection was
 * deactivated since create, so the task is failed here with `storage_connection_inactive` (final)
 * and no credentials leave the Worker.
 */
export async function taskGrants(
  env: Env,
  job: Job,
  lease: { taskId: string; token: string; runnerTokenId: string | null },
): Promise<{ storage: StorageGrant | null; presigned: PresignedGrant | null } | null> {
  let storage: StorageGrant | null;
  try {
    storage = await storageGrantFor(env, job);
  } catch (err) {
    if (!(err instanceof StorageConnectionInactive)) throw err;
    // Failed with the lease's own token: the JobDO accepts a report on a lease only from the token that took it.
    await jobStub(env, job.jobId).failStep(
      lease.taskId,
      lease.token,
      { code: err.code, message: err.message, retryable: false },
      lease.runnerTokenId,
    );
    return null;
  }
  return { storage, presigned: await presignedGrantFor(getDb(env.DB), env.ENCRYPTION_KEY, job) };
}
