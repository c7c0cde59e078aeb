import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { OUTPUT_ACCESS_DENIED } from "../../../contracts/presigned";
import { S3Client, S3Error } from "../../../contracts/s3-client";
import {
  TranscriptFilesResultSchema,
  TranscriptFilesStoredSchema,
  type TranscriptFilesStored,
} from "../../../contracts/services/transcript-files";
import { StepFailure } from "../../../contracts/step-failure";
import type { Segment } from "../../../contracts/transcript";
import { segmentsForFiles, TRANSCRIPT_FILE_NAMES, TRANSCRIPT_FILE_STAGES, TRANSCRIPT_FILES } from "../../../contracts/transcript-files";
import { getDb, type Db } from "../../db/client";
import { jobs, transcripts } from "../../db/schema";
import { notFound, validationError } from "../../errors";
import { blobStore } from "../../storage/blobs";
import { requireUsableConnection } from "../../storage/connections";
import { storageGrantFor } from "../../storage/scratch";
import { readLayer } from "../../transcripts/store";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService, runnerBase, type WorkerStepHandler } from "../types";

/**
 * Transcript files, the Worker's side: create checks (the transcript is the project's, completed, and
 * its files are in a bucket its connection still reaches), and the one in-Worker step that renders the
 * current segments with the table the transcription's runner used (contracts/transcript-files.ts),
 * writes them over the same keys and notes the revision they now hold.
 */

const PATH = "input.textSourceId";

/** What a transcription job's public record says of how its files name speakers (on by default). */
const TranscriptionJobData = z.object({ input: z.object({ options: z.object({ subtitleSpeakers: z.boolean().optional() }).optional() }) });

async function subtitleSpeakersOf(db: Db, jobId: string): Promise<boolean> {
  const row = await db.select({ data: jobs.data }).from(jobs).where(eq(jobs.id, jobId)).get();
  return TranscriptionJobData.safeParse(row?.data).data?.input.options?.subtitleSpeakers ?? true;
}

const Files = TranscriptFilesStoredSchema.shape.outputKeys;

const write: WorkerStepHandler = async ({ env, job, report }) => {
  const stored: TranscriptFilesStored = TranscriptFilesStoredSchema.parse(job.input);
  const db = getDb(env.DB);
  const loaded = await report.stage(
    "load_transcription",
    async () => {
      const t = await db
        .select()
        .from(transcripts)
        .where(and(eq(transcripts.id, stored.textSourceId), eq(transcripts.projectId, job.projectId)))
        .get();
      if (!t || t.status !== "completed")
        throw new StepFailure("source_not_found", `transcription not found: ${stored.textSourceId}`, false);
      const segments = (await readLayer<Segment[]>(db, blobStore(env.BLOBS), t, "segments")) ?? [];
      const doc = {
        language: t.language ?? "",
        durationSec: t.durationSec ?? 0,
        engine: t.engine ?? "",
        model: t.model ?? "",
        diarization: t.diarization,
        speakers: t.speakers,
        segments,
      };
      return { revision: t.revision, doc };
    },
    (l) => ({ revision: l.revision, segments: l.doc.segments.length }),
  );
  const grant = await storageGrantFor(env, job);
  if (!grant) throw new StepFailure("source_access_denied", "the transcript's storage connection is gone", false);
  const s3 = new S3Client(grant, 30_000);
  const naming = { speakers: loaded.doc.speakers, speakerLabels: stored.subtitleSpeakers };
  let bytes = 0;
  for (const name of TRANSCRIPT_FILE_NAMES) {
    const file = TRANSCRIPT_FILES[name];
    const key = stored.outputKeys[name];
    // Subtitles time their cues by the words heard; an edited segment's words no longer say its text.
    const doc = name === "srt" || name === "vtt" ? { ...loaded.doc, segments: segmentsForFiles(loaded.doc.segments) } : loaded.doc;
    const body = file.render(doc, naming);
    const size = new TextEncoder().encode(body).byteLength;
    await report.stage(
      TRANSCRIPT_FILE_STAGES[name],
      async () => {
        try {
          await s3.putObject(grant.bucket, key, body, file.type);
        } catch (err) {
          if (err instanceof S3Error && err.status === 403)
            throw new StepFailure(OUTPUT_ACCESS_DENIED, `the bucket refused the write of ${grant.bucket}/${key}`, false);
          throw err;
        }
        bytes += size;
        return { key, bytes: size };
      },
      (d) => d,
    );
  }
  // Never backwards: a rewrite from an older revision that finishes after a newer one leaves the newer noted.
  await db
    .update(transcripts)
    .set({ outputKeysRevision: sql`max(${transcripts.outputKeysRevision}, ${loaded.revision})` })
    .where(eq(transcripts.id, stored.textSourceId))
    .run();
  return { textSourceId: stored.textSourceId, revision: loaded.revision, outputKeys: stored.outputKeys, bytes };
};

export const transcriptFilesWorker = defineWorkerService<"transcript_files">({
  // Rendering text already paid for: counted with the transcriptions, charged nothing (docs/api.md).
  meter: "transcription_jobs",
  quote: () => 0,
  resolve: async ({ db, projectId }, input) => {
    const id = input.textSourceId;
    const t = await db
      .select()
      .from(transcripts)
      .where(and(eq(transcripts.id, id), eq(transcripts.projectId, projectId)))
      .get();
    if (!t) throw notFound(`transcription not found: ${id}`, [{ path: PATH, issue: `notFound:${id}` }]);
    if (t.status !== "completed")
      throw validationError(`transcription ${id} is ${t.status}; only a completed transcript has files`, [
        { path: PATH, issue: "jobNotCompleted" },
      ]);
    const files = Files.safeParse(t.outputKeys);
    if (!files.success || !t.connectionId || !t.bucket)
      throw validationError(
        `transcription ${id} wrote its files to presigned URLs, which were its job's alone: there is no bucket to rewrite them in`,
        [{ path: PATH, issue: "noBucketFiles" }],
      );
    await requireUsableConnection(db, projectId, t.connectionId, t.bucket);
    return {
      input: {
        textSourceId: id,
        connectionId: t.connectionId,
        bucket: t.bucket,
        outputKeys: files.data,
        subtitleSpeakers: await subtitleSpeakersOf(db, t.jobId),
      },
      credits: 0,
    };
  },
  sinks: {
    "transcript_files.write": validatedSink(TranscriptFilesResultSchema, "transcript_files.write", async (_ctx, r) => ({
      ok: true,
      summary: r,
    })),
  },
  workerSteps: { "transcript_files.write": write },
  runnerSettings: runnerBase,
});
