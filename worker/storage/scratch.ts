import { and, eq } from "drizzle-orm";
import type { Job } from "../../contracts/job";
import type { StorageGrant } from "../../contracts/runner-protocol";
import { S3Client } from "../../contracts/s3-client";
import { getDb } from "../db/client";
import { storageConnections } from "../db/schema";
import type { Env } from "../env";
import { connectionLocation, StorageConnectionInactive } from "./connections";
import { isUnderPrefix } from "./object-keys";

/**
 * Scratch space for artifacts one step hands to a later one (too large to pass through the JobDO):
 * a prefix of the job's own bucket, named by the job, whose objects are deleted when the job ends.
 */
export const scratchPrefix = (jobId: string): string => `_media-jobs/scratch/${jobId}/`;

/** The job's bucket and the credentials to reach it, or null for a job with no storage. */
export async function storageGrantFor(env: Env, job: Job): Promise<StorageGrant | null> {
  const connectionId = job.input["connectionId"];
  const bucket = job.input["bucket"];
  if (typeof connectionId !== "string" || typeof bucket !== "string") return null;
  return projectStorageGrant(env, job.projectId, connectionId, bucket);
}

/**
 * Access to a bucket through one of the project's connections; null when the connection is gone.
 * A deactivated connection throws `StorageConnectionInactive` (the job fails `storage_connection_inactive`):
 * deactivating stops its credentials from being handed out, also to jobs accepted before.
 */
export async function projectStorageGrant(env: Env, projectId: string, connectionId: string, bucket: string): Promise<StorageGrant | null> {
  const conn = await getDb(env.DB)
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId)))
    .get();
  if (!conn) return null;
  if (conn.status !== "active") throw new StorageConnectionInactive(conn.id);
  return { connectionId, bucket, ...(await connectionLocation(conn, env.ENCRYPTION_KEY)) };
}

/**
 * Deletes the scratch objects the job's steps reported. Only keys under the job's own prefix are
 * touched, whatever a step reported: compared by path segments, so a key with `.`/`..` segments
 * (`…/job_x/../../y`) is never one of them. Best effort: a failure is logged, never fails the job's end
 * (an operator may also expire `_media-jobs/scratch/` with a bucket lifecycle rule).
 */
export async function deleteScratch(env: Env, job: Job, keys: readonly string[]): Promise<void> {
  const own = keys.filter((k) => isUnderPrefix(k, scratchPrefix(job.jobId)));
  if (own.length === 0) return;
  try {
    const grant = await storageGrantFor(env, job);
    if (!grant) return;
    const s3 = new S3Client(grant, 10_000);
    // One at a time: a job has a handful of scratch objects, and s3rver (the local stack's S3) fails
    // concurrent deletes in one folder with 500s.
    for (const k of own) await s3.deleteObject(grant.bucket, k);
  } catch (err) {
    console.error(JSON.stringify({ level: "warn", msg: "scratch cleanup failed", jobId: job.jobId, error: String(err) }));
  }
}
