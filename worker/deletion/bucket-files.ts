import { and, eq } from "drizzle-orm";
import { S3Client } from "../../contracts/s3-client";
import type { Db } from "../db/client";
import { storageConnections } from "../db/schema";
import type { Env } from "../env";
import { connectionLocation } from "../storage/connections";
import { isUnderPrefix } from "../storage/object-keys";
import { scratchPrefix } from "../storage/scratch";
import type { BucketFiles } from "./scope";

/**
 * Deleting files in the customer's bucket for a deletion: the outputs its jobs wrote (`deleteOutputs`)
 * and their scratch objects. Through the job's own connection, also when it has been deactivated (a
 * project's deletion deactivates its connections first, so no job can use them; the deletion still
 * may). One object at a time (s3rver, the local S3, fails concurrent deletes in one folder).
 * A bucket that cannot be reached is reported, never fatal: the rest of the deletion goes on.
 */

export interface BucketOutcome {
  deleted: number;
  /** Files not deleted, and why (presigned URLs, a connection gone, the bucket refusing). */
  kept: Array<{ what: string; key: string | null; reason: string }>;
}

const S3_TIMEOUT_MS = 15_000;

async function clientFor(env: Env, db: Db, projectId: string, connectionId: string): Promise<S3Client | null> {
  const conn = await db
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId)))
    .get();
  if (!conn) return null;
  return new S3Client(await connectionLocation(conn, env.ENCRYPTION_KEY), S3_TIMEOUT_MS);
}

export async function deleteBucketFiles(env: Env, db: Db, projectId: string, groups: readonly BucketFiles[]): Promise<BucketOutcome> {
  const out: BucketOutcome = { deleted: 0, kept: [] };
  const clients = new Map<string, S3Client | null>();
  for (const g of groups) {
    if (g.keptReason || !g.connectionId || !g.bucket) {
      out.kept.push({ what: g.what, key: null, reason: g.keptReason ?? "the job had no bucket" });
      continue;
    }
    if (!clients.has(g.connectionId)) clients.set(g.connectionId, await clientFor(env, db, projectId, g.connectionId));
    const s3 = clients.get(g.connectionId) ?? null;
    if (!s3) {
      out.kept.push({ what: g.what, key: null, reason: `storage connection ${g.connectionId} no longer exists` });
      continue;
    }
    for (const key of g.keys) {
      try {
        await s3.deleteObject(g.bucket, key);
        out.deleted += 1;
      } catch (err) {
        out.kept.push({ what: g.what, key, reason: `the bucket refused the delete: ${String(err).slice(0, 200)}` });
      }
    }
  }
  return out;
}

/** A job's scratch objects (only keys under its own scratch prefix, whatever was reported). */
export function scratchFiles(
  job: { jobId: string; connectionId: string | null; bucket: string | null },
  artifacts: readonly string[],
): BucketFiles | null {
  const keys = artifacts.filter((k) => isUnderPrefix(k, scratchPrefix(job.jobId)));
  if (keys.length === 0 || !job.connectionId || !job.bucket) return null;
  return { what: `scratch of ${job.jobId}`, jobId: job.jobId, connectionId: job.connectionId, bucket: job.bucket, keys, keptReason: null };
}
