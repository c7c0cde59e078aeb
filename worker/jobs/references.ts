import { and, eq } from "drizzle-orm";
import type { Plan } from "../../contracts/service-types";
import type { Db } from "../db/client";
import { jobs, storageConnections, transcripts } from "../db/schema";
import { ApiError, notFound, validationError } from "../errors";

/**
 * The reference checks services share in POST /v1/jobs, with the spec's exact messages and detail
 * issues. They run before any credit is charged, so a rejected request costs nothing.
 */

export type TranscriptRow = typeof transcripts.$inferSelect;

export async function findTranscript(db: Db, projectId: string, id: string): Promise<TranscriptRow | undefined> {
  return db
    .select()
    .from(transcripts)
    .where(and(eq(transcripts.id, id), eq(transcripts.projectId, projectId)))
    .get();
}

/**
 * metadata / indexer / translation / dubbing style: `transcription not found: <id>`, `noSegments:<id>`.
 * A transcript whose transcription has not completed (pending, processing, failed) has no segments
 * to work on yet, and the spec names only that answer for it, as summarization gives.
 */
export async function requireSegmentedTranscript(db: Db, projectId: string, id: string, path: string): Promise<TranscriptRow> {
  const t = await findTranscript(db, projectId, id);
  if (!t) throw notFound(`transcription not found: ${id}`, [{ path, issue: `notFound:${id}` }]);
  if (t.status !== "completed" || t.segmentCount === 0)
    throw validationError(`transcription ${id} has no segments`, [{ path, issue: `noSegments:${id}` }]);
  return t;
}

/** clip_generation / thumbnail style: `emptySegments`, `jobNotCompleted`, missing job row. */
export async function requireClipSource(db: Db, projectId: string, id: string): Promise<TranscriptRow> {
  const path = "input.textSourceId";
  const t = await findTranscript(db, projectId, id);
  if (!t) throw notFound(`transcription not found: ${id}`, [{ path, issue: `notFound:${id}` }]);
  const job = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, t.jobId)).get();
  if (!job) throw notFound(`transcription job not found: ${t.jobId}`, [{ path, issue: `notFound:${t.jobId}` }]);
  if (job.status !== "completed" || t.status !== "completed")
    throw validationError(`transcription job ${t.jobId} is not completed (status ${job.status})`, [{ path, issue: "jobNotCompleted" }]);
  if (t.segmentCount === 0) throw validationError("transcription has no segments", [{ path, issue: "emptySegments" }]);
  return t;
}

export function extensionOf(key: string): string {
  const name = key.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

export function displayNameOf(key: string): string {
  const name = key.split("/").pop() ?? key;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

/** The connection exists in the project, is active, and allows the bucket; `at` prefixes the error paths. */
export async function requireUsableConnection(db: Db, projectId: string, connectionId: string, bucket: string, at = "input") {
  const conn = await db
    .select()
    .from(storageConnections)
    .where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId)))
    .get();
  if (!conn)
    throw notFound(`storage connection not found: ${connectionId}`, [{ path: `${at}.connectionId`, issue: `notFound:${connectionId}` }]);
  if (conn.status !== "active")
    throw validationError(`storage connection ${conn.id} is not active`, [{ path: `${at}.connectionId`, issue: "connectionInactive" }]);
  if (!conn.buckets.includes(bucket)) {
    throw validationError(`bucket ${bucket} is not in the connection's buckets (${conn.buckets.join(", ")})`, [
      { path: `${at}.bucket`, issue: "bucketNotAllowed" },
    ]);
  }
  return conn;
}

/**
 * Clip and thumbnail sources: fields sent explicitly are checked like a transcription's; omitted
 * ones are resolved from the transcription job.
 */
export async function checkedSource<T extends { connectionId?: string; bucket?: string; sourceKey?: string; sourceType?: string }>(
  db: Db,
  projectId: string,
  input: T,
  t: TranscriptRow,
): Promise<T> {
  const resolved = sourceFromTranscript(input, t);
  if ((input.connectionId || input.bucket) && resolved.connectionId && resolved.bucket)
    await requireUsableConnection(db, projectId, resolved.connectionId, resolved.bucket);
  return resolved;
}

/** Resolves the clip/thumbnail source fields from the transcription's job when omitted. */
function sourceFromTranscript<T extends { connectionId?: string; bucket?: string; sourceKey?: string; sourceType?: string }>(
  input: T,
  t: TranscriptRow,
): T {
  return {
    ...input,
    sourceType: input.sourceType ?? "s3_direct",
    connectionId: input.connectionId ?? t.connectionId ?? undefined,
    bucket: input.bucket ?? t.bucket ?? undefined,
    sourceKey: input.sourceKey ?? t.sourceKey ?? undefined,
  };
}

/** The spec's image-model rules: free 1:1, 3:2, 2:3 at 1024; enterprise up to 3:1, edges ≤ 3840, 655,360–8,294,400 px. */
export function thumbnailSize(plan: Plan, rw: number, rh: number, resolution: number): { width: number; height: number } {
  const snap = (v: number) => Math.round(v / 16) * 16;
  const short = snap(resolution);
  const long = snap((resolution * Math.max(rw, rh)) / Math.min(rw, rh));
  const size = rw >= rh ? { width: long, height: short } : { width: short, height: long };
  const fail = (msg: string) => {
    throw new ApiError("validationError", msg, [{ path: "input.options", issue: "invalidRatioResolution" }]);
  };
  if (plan !== "enterprise") {
    const ok = [
      [1, 1],
      [3, 2],
      [2, 3],
    ].some(([w, h]) => rw * (h as number) === rh * (w as number));
    if (!ok || resolution !== 1024) fail("the free plan image model allows only ratios 1:1, 3:2, 2:3 at resolution 1024");
    return size;
  }
  if (Math.max(rw, rh) / Math.min(rw, rh) > 3) fail("aspect ratio must be at most 3:1");
  if (long > 3840 || short > 3840) fail(`edges must be at most 3840 px (got ${short}x${long} after snapping to multiples of 16)`);
  const px = short * long;
  if (px < 655_360 || px > 8_294_400) fail(`total pixels must be between 655,360 and 8,294,400 (got ${px})`);
  return size;
}
