import { eq } from "drizzle-orm";
import { z } from "zod";
import { S3Client } from "../../../contracts/s3-client";
import { StepFailure } from "../../../contracts/step-failure";
import type { Segment } from "../../../contracts/transcript";
import { getDb } from "../../db/client";
import { transcripts } from "../../db/schema";
import { scratchPrefix, storageGrantFor } from "../../storage/scratch";
import { isUnderPrefix } from "../../storage/object-keys";
import { blobStore } from "../../storage/blobs";
import { readLayer } from "../../transcripts/store";
import { redactedSpansOf } from "../../transcripts/redaction";
import type { Job } from "../../../contracts/job";
import type { Env } from "../../env";
import type { Db } from "../../db/client";
import { HANDOVER_TRANSCRIPT_CALL, PRESIGNED_SOURCE_TYPE } from "../../../contracts/presigned";
import type { ResultSink, RunnerCall, WorkerStepHandler } from "../types";

/**
 * The in-Worker `fetch_transcription` step of the services that work from a transcript on the
 * runner (clips, thumbnails), and the sink that passes its scratch key on to the runner step. An
 * `s3_presigned` job has no bucket to hand anything over in: its runner step reads the transcript
 * through the call `handover.transcript` instead (`HANDOVER_TRANSCRIPT_CALL`).
 */

/** What the hand-over reads of a clip or thumbnail job's stored input (both contracts store these). */
const HandoverStoredSchema = z.object({ textSourceId: z.string().min(1), sourceType: z.string().optional() });

/**
 * The transcript as the runner step reads it: the current segments with their words, its speakers'
 * names, the revision they are, and where its redacted words were (their audio is silenced in every clip).
 */
async function handoverDocument(db: Db, bucket: R2Bucket, textSourceId: string) {
  const t = await db.select().from(transcripts).where(eq(transcripts.id, textSourceId)).get();
  if (!t) throw new StepFailure("source_not_found", `transcription not found: ${textSourceId}`, false);
  const segments = (await readLayer<Segment[]>(db, blobStore(bucket), t, "segments")) ?? [];
  const speakers = t.speakers.map(({ label, name }) => ({ label, name }));
  return {
    textSourceId,
    language: t.language,
    durationSec: t.durationSec,
    revision: t.revision,
    segments,
    speakers,
    redactedSpans: redactedSpansOf(t.redaction),
  };
}

/**
 * Notes on the job's record the transcript revision handed to its runner step (what its output is
 * made from), each time one is handed over: by the step, or by the call of an `s3_presigned` job.
 */
export type NoteRevision = (ctx: { db: Db; job: Job }, revision: number) => Promise<void>;

/** `handover.transcript`: the job's own transcript (the one its input names), as the scratch object would hold it. */
export function handoverTranscriptCallNoting(note?: NoteRevision): RunnerCall {
  return async ({ env, db, job }) => {
    const doc = await handoverDocument(db, env.BLOBS, HandoverStoredSchema.parse(job.input).textSourceId);
    await note?.({ db, job }, doc.revision);
    return doc;
  };
}

export const handoverTranscriptCall = handoverTranscriptCallNoting();

/** Further scratch objects a service hands over with the transcript (e.g. a brand logo), by output name. */
export type HandOverExtra = (ctx: {
  env: Env;
  job: Job;
  s3: S3Client;
  bucket: string;
  scratch: string;
}) => Promise<{ keys: Record<string, string>; details: Record<string, unknown> }>;

/**
 * `fetch_transcription`: the transcript's current segments (with their words) written as a scratch
 * object in the job's bucket, because a long transcript is far larger than a step output may be.
 */
export function fetchTranscriptionStep(extra?: HandOverExtra, note?: NoteRevision): WorkerStepHandler {
  return async ({ env, job, report }) => {
    const db = getDb(env.DB);
    const { textSourceId, sourceType } = HandoverStoredSchema.parse(job.input);
    let out: Record<string, unknown> | undefined;
    await report.stage(
      "fetch_transcription",
      async () => {
        const doc = await handoverDocument(db, env.BLOBS, textSourceId);
        const { segments } = doc;
        const words = segments.reduce((n, s) => n + (s.words?.length ?? 0), 0);
        if (sourceType === PRESIGNED_SOURCE_TYPE) {
          // Its runner step reads the transcript through the call, which notes the revision it hands over.
          out = { segmentCount: segments.length, artifacts: [] };
          return { segments: segments.length, words, handover: `runner call ${HANDOVER_TRANSCRIPT_CALL} (the job has no bucket)` };
        }
        const grant = await storageGrantFor(env, job);
        if (!grant) throw new StepFailure("source_access_denied", "the job's storage connection is gone", false);
        const scratch = scratchPrefix(job.jobId);
        const key = `${scratch}transcript.json`;
        const body = JSON.stringify(doc);
        const s3 = new S3Client(grant, 30_000);
        await s3.putObject(grant.bucket, key, body, "application/json");
        const more = extra ? await extra({ env, job, s3, bucket: grant.bucket, scratch }) : { keys: {}, details: {} };
        await note?.({ db, job }, doc.revision);
        out = { transcriptKey: key, ...more.keys, segmentCount: segments.length, artifacts: [key, ...Object.values(more.keys)] };
        return {
          segments: segments.length,
          words,
          revision: doc.revision,
          bytes: body.length,
          ...more.details,
        };
      },
      (details) => details,
    );
    // Set by the stage, which either ran to its end or threw.
    if (!out) throw new StepFailure("processing_failed", "the transcript was not handed over", true);
    return out;
  };
}

export const fetchTranscription = fetchTranscriptionStep();

/**
 * Passes the scratch keys (`…Key` fields) on to the next step as its outputs; the job deletes them
 * when it ends. Each must lie in the job's own scratch folder (compared by path segments).
 */
export const handOver: ResultSink = async ({ job }, raw) => {
  const keys = Object.fromEntries(Object.entries(raw).filter(([k, v]) => k.endsWith("Key") && typeof v === "string")) as Record<
    string,
    string
  >;
  const stray = Object.entries(keys).find(([, key]) => !isUnderPrefix(key, scratchPrefix(job.jobId)));
  if (stray) return { ok: false, error: { code: "processing_failed", message: `${stray[0]} is not a key in the job's scratch folder` } };
  if (Object.keys(keys).length === 0) return { ok: true, summary: {} };
  return { ok: true, summary: {}, output: keys, artifacts: Object.values(keys) as string[] };
};
