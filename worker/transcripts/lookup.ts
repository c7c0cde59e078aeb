import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { jobs, transcripts } from "../db/schema";
import { notFound, validationError } from "../errors";
import { requireUsableConnection } from "../storage/connections";
import { projectDataPolicy } from "../accounts/data-policy";

/**
 * The transcript checks services share in POST /v1/jobs, with the spec's exact messages and detail
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
 * The current speaker names of the project's transcripts `ids`, by transcript and label (a search's
 * hits name who speaks as the transcript names them now). One statement; the ids travel as one JSON
 * array, since D1 binds at most 100 parameters.
 */
export async function speakerNamesOf(db: Db, projectId: string, ids: readonly string[]): Promise<Map<string, Map<string, string | null>>> {
  const rows = await db
    .select({ id: transcripts.id, speakers: transcripts.speakers })
    .from(transcripts)
    .where(and(eq(transcripts.projectId, projectId), sql`${transcripts.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`))
    .all();
  return new Map(rows.map((r) => [r.id, new Map(r.speakers.map((s) => [s.label, s.name]))]));
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
  await requireRedactedUnderPolicy(db, t, path);
  return t;
}

/**
 * Under the project policy `redaction: "required"`, nothing is made from a transcript that was not
 * redacted (one transcribed before the policy, or with it off): 422 `redactionRequired`, so no
 * translation, summary, index, clip or dub ever reads unredacted text. One query, only for such a transcript.
 */
export async function requireRedactedUnderPolicy(db: Db, t: TranscriptRow, path: string): Promise<void> {
  if (t.redaction) return;
  if ((await projectDataPolicy(db, t.projectId)).redaction !== "required") return;
  throw validationError(
    `transcription ${t.id} is not redacted and this project's data policy requires redaction; transcribe the media again to make a redacted transcript`,
    [{ path, issue: "redactionRequired" }],
  );
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
  await requireRedactedUnderPolicy(db, t, path);
  return t;
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
