import { eq } from "drizzle-orm";
import type { Job } from "../../contracts/job";
import { PresignedGrantSchema, type PresignedGrant } from "../../contracts/presigned";
import type { Db } from "../db/client";
import { jobSecrets } from "../db/schema";
import { SEAL_PURPOSES, seal, unseal } from "../platform/crypto";

/**
 * Where an `s3_presigned` job's full URLs live: sealed under ENCRYPTION_KEY in `job_secrets`, as a
 * connection's secret key is, written with the job and read back only to build a runner's lease.
 */

/** A job's URLs are sealed for its own `job_secrets` row. */
const presignedSeal = (jobId: string) => ({ purpose: SEAL_PURPOSES.presignedGrant, rowId: jobId });

/** The record create inserts with the job (and removes again if the create fails after it). */
export function presignedRecord(db: Db, encryptionKey: string, projectId: string, grant: PresignedGrant) {
  let jobIdWritten: string | null = null;
  return {
    statements: async (jobId: string, now: string) => {
      const presignedEnc = await seal(encryptionKey, JSON.stringify(grant), presignedSeal(jobId));
      jobIdWritten = jobId;
      return [db.insert(jobSecrets).values({ jobId, projectId, presignedEnc, createdAt: now })];
    },
    remove: async () => {
      if (jobIdWritten) await deletePresignedGrant(db, jobIdWritten);
    },
  };
}

/** The task's `presigned` grant, or null for a job without one (a bucket job, or one whose URLs were deleted at its end). */
export async function presignedGrantFor(db: Db, encryptionKey: string, job: Job): Promise<PresignedGrant | null> {
  if (job.input["sourceType"] !== "s3_presigned") return null;
  const row = await db.select().from(jobSecrets).where(eq(jobSecrets.jobId, job.jobId)).get();
  if (!row) return null;
  return PresignedGrantSchema.parse(JSON.parse(await unseal(encryptionKey, row.presignedEnc, presignedSeal(job.jobId))));
}

/** A job that ended needs its URLs no more: nothing keeps a signature longer than the job. */
export async function deletePresignedGrant(db: Db, jobId: string): Promise<void> {
  await db.delete(jobSecrets).where(eq(jobSecrets.jobId, jobId));
}
