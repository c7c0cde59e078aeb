import { eq } from "drizzle-orm";
import { S3Client } from "../../../contracts/s3-client";
import { StepFailure } from "../../../contracts/step-failure";
import type { Segment } from "../../../contracts/transcript";
import { getDb } from "../../db/client";
import { transcripts } from "../../db/schema";
import { scratchPrefix, storageGrantFor } from "../../jobs/scratch";
import { readLayer } from "../../transcripts/store";
import type { ResultSink, WorkerStepHandler } from "../types";

/**
 * The in-Worker `fetch_transcription` step of the services that work from a transcript on the
 * runner (clips, thumbnails), and the sink that passes its scratch key on to the runner step.
 */

/**
 * `fetch_transcription`: the transcript's current segments (with their words) written as a scratch
 * object in the job's bucket, because a long transcript is far larger than a step output may be.
 */
export const fetchTranscription: WorkerStepHandler = async ({ env, job, stage }) => {
  const db = getDb(env.DB);
  const textSourceId = String(job.input["textSourceId"]);
  let out: { transcriptKey: string; segmentCount: number; artifacts: string[] } | undefined;
  const goOn = await stage("fetch_transcription", async () => {
    const t = await db.select().from(transcripts).where(eq(transcripts.id, textSourceId)).get();
    if (!t) throw new StepFailure("source_not_found", `transcription not found: ${textSourceId}`, false);
    const segments = (await readLayer<Segment[]>(db, t.id, "segments")) ?? [];
    const grant = await storageGrantFor(env, job);
    if (!grant) throw new StepFailure("source_access_denied", "the job's storage connection is gone", false);
    const key = `${scratchPrefix(job.jobId)}transcript.json`;
    const body = JSON.stringify({ textSourceId, language: t.language, durationSec: t.durationSec, segments });
    await new S3Client(grant, 30_000).putObject(grant.bucket, key, body, "application/json");
    out = { transcriptKey: key, segmentCount: segments.length, artifacts: [key] };
    return { segments: segments.length, words: segments.reduce((n, s) => n + (s.words?.length ?? 0), 0), bytes: body.length };
  });
  if (!goOn || !out) return { cancelled: true };
  return out;
};

export const handOver: ResultSink = async (_ctx, raw) => {
  const key = raw["transcriptKey"];
  if (typeof key !== "string") return { ok: true, summary: {} };
  return { ok: true, summary: {}, output: { transcriptKey: key }, artifacts: [key] };
};
