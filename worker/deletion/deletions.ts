import { and, eq, isNull, notInArray } from "drizzle-orm";
import type { AuditActor } from "../../contracts/audit-log";
import { nowIso } from "../../contracts/clock";
import { isTerminal, TERMINAL_STATUSES, type JobStatus } from "../../contracts/service-types";
import { forgetKeys } from "../auth/key-cache";
import { getDb, type Db } from "../db/client";
import { apiKeys, jobs, projects, storageConnections, transcripts, voices } from "../db/schema";
import { projectVoice } from "../services/voice-creation/store";
import type { Env } from "../env";
import { conflict, notFound } from "../errors";
import { findTranscript } from "../transcripts/lookup";
import { completeAuditEvent, openAuditEvent, progressAuditEvent, type AuditRow } from "./audit-log";
import { deleteBucketFiles } from "./bucket-files";
import { addTallies, emptyTally, eraseJobObjects, eraseTranscript, jobRowStatements, type ErasureTally } from "./erase-transcript";
import { eraseProjectBatch, type ProjectErasure } from "./erase-project";
import { jobsUsingTranscript, transcriptScope, type BucketFiles, type ErasedJob, type TranscriptScope } from "./scope";

/**
 * Deletions as the API, the console and the retention policy ask for them: each checks that nothing
 * running uses what goes (409 naming the job), writes its audit entry with everything still to do,
 * erases, and completes the entry. What stops half-way stays `in_progress` and `resumeDeletions`
 * (the scheduled run) finishes it from the entry.
 */

export interface JobErasure {
  kind: "job";
  projectId: string;
  job: ErasedJob;
  outputs: BucketFiles[] | null;
}

type Pending = TranscriptScope | JobErasure | ProjectErasure;

export interface DeletionOutcome {
  audit: AuditRow;
  tally: ErasureTally;
}

const detailsOf = (t: ErasureTally): Record<string, unknown> => ({ ...t });

function busy(what: string, jobId: string, status: string) {
  return conflict(`${what} is in use by job ${jobId} (${status}); wait for it to finish or cancel it, then delete again`, [
    { path: "jobId", issue: `inUseBy:${jobId}` },
  ]);
}

// ---- transcripts ------------------------------------------------------------------------------

export async function deleteTranscript(
  env: Env,
  actor: AuditActor,
  workspaceId: string,
  projectId: string,
  transcriptId: string,
  opts: { deleteOutputs: boolean },
): Promise<DeletionOutcome> {
  const db = getDb(env.DB);
  const t = await findTranscript(db, projectId, transcriptId);
  if (!t) throw notFound(`transcription not found: ${transcriptId}`, [{ path: "transcriptionId", issue: `notFound:${transcriptId}` }]);
  const [using] = await jobsUsingTranscript(env, t);
  if (using) throw busy(`transcription ${transcriptId}`, using.jobId, using.status);
  const scope = await transcriptScope(env, db, t, opts.deleteOutputs);
  const audit = await openAuditEvent(db, {
    workspaceId,
    projectId,
    action: "transcript.deleted",
    subject: { type: "transcript", id: transcriptId },
    actor,
    pending: { ...scope },
  });
  return finish(db, audit, await eraseTranscript(env, scope));
}

async function finish(db: Db, audit: AuditRow, tally: ErasureTally): Promise<DeletionOutcome> {
  return { audit: (await completeAuditEvent(db, audit.id, detailsOf(tally))) ?? audit, tally };
}

// ---- jobs ---------------------------------------------------------------------------------------

export async function deleteJob(
  env: Env,
  actor: AuditActor,
  workspaceId: string,
  projectId: string,
  jobId: string,
  opts: { deleteOutputs: boolean },
): Promise<DeletionOutcome> {
  const db = getDb(env.DB);
  const row = await db
    .select()
    .from(jobs)
    .where(and(eq(jobs.id, jobId), eq(jobs.projectId, projectId)))
    .get();
  if (!row) throw notFound(`job not found: ${jobId}`, [{ path: "jobId", issue: `notFound:${jobId}` }]);
  if (!isTerminal(row.status as JobStatus)) throw busy(`job ${jobId}`, jobId, row.status);
  const input = (row.data["input"] ?? {}) as Record<string, unknown>;
  const job: ErasedJob = {
    jobId,
    connectionId: typeof input["connectionId"] === "string" && input["sourceType"] !== "s3_presigned" ? input["connectionId"] : null,
    bucket: typeof input["bucket"] === "string" ? input["bucket"] : null,
  };
  const pending: JobErasure = {
    kind: "job",
    projectId,
    job,
    outputs: opts.deleteOutputs ? await outputsOfJob(env, db, projectId, jobId, input) : null,
  };
  const audit = await openAuditEvent(db, {
    workspaceId,
    projectId,
    action: "job.deleted",
    subject: { type: "job", id: jobId },
    actor,
    pending: { ...pending },
  });
  return finish(db, audit, await eraseJob(env, pending));
}

/** The files a job wrote: those of the transcript's records it made (scope.ts knows them), filtered to the job. */
async function outputsOfJob(env: Env, db: Db, projectId: string, jobId: string, input: Record<string, unknown>): Promise<BucketFiles[]> {
  const named = [input["textSourceId"], input["transcriptionId"]].find((v): v is string => typeof v === "string");
  const t = named
    ? await findTranscript(db, projectId, named)
    : await db
        .select()
        .from(transcripts)
        .where(and(eq(transcripts.projectId, projectId), eq(transcripts.jobId, jobId)))
        .get();
  if (!t) return [];
  const scope = await transcriptScope(env, db, t, true);
  return (scope.outputs ?? []).filter((f) => f.jobId === jobId);
}

async function eraseJob(env: Env, e: JobErasure): Promise<ErasureTally> {
  const db = getDb(env.DB);
  const scratch = await eraseJobObjects(env, [e.job]);
  await env.DB.batch(jobRowStatements(env, e.projectId, [e.job.jobId]));
  await deleteBucketFiles(env, db, e.projectId, scratch);
  const bucket = await deleteBucketFiles(env, db, e.projectId, e.outputs ?? []);
  return { jobs: 1, records: {}, catalogChunks: 0, platformObjects: 0, bucketFilesDeleted: bucket.deleted, bucketFilesKept: bucket.kept };
}

// ---- voices -----------------------------------------------------------------------------------

/**
 * A voice: its row goes at once (dubbings that used it keep their record and audio); with
 * `deleteOutputs` its reference clip in the bucket too, through the connection its sample was read with.
 */
export async function deleteVoice(
  env: Env,
  actor: AuditActor,
  workspaceId: string,
  projectId: string,
  voiceId: string,
  opts: { deleteOutputs: boolean },
): Promise<DeletionOutcome> {
  const db = getDb(env.DB);
  const v = await projectVoice(db, projectId, voiceId);
  if (!v) throw notFound(`voice not found: ${voiceId}`, [{ path: "voiceId", issue: `notFound:${voiceId}` }]);
  const sample = v.sample as { connectionId?: unknown; bucket?: unknown };
  const files: BucketFiles[] =
    opts.deleteOutputs && v.referenceKey
      ? [
          {
            what: `voice ${voiceId} reference clip`,
            jobId: v.jobId,
            connectionId: typeof sample.connectionId === "string" ? sample.connectionId : null,
            bucket: typeof sample.bucket === "string" ? sample.bucket : null,
            keys: [v.referenceKey],
            keptReason: typeof sample.connectionId === "string" ? null : "the voice's sample came through a presigned URL",
          },
        ]
      : [];
  const audit = await openAuditEvent(db, {
    workspaceId,
    projectId,
    action: "voice.deleted",
    subject: { type: "voice", id: voiceId },
    actor,
    pending: {},
  });
  await db.delete(voices).where(and(eq(voices.id, voiceId), eq(voices.projectId, projectId)));
  const bucket = await deleteBucketFiles(env, db, projectId, files);
  return finish(db, audit, {
    ...emptyTally(),
    records: { voices: 1 },
    bucketFilesDeleted: bucket.deleted,
    bucketFilesKept: bucket.kept,
  });
}

// ---- projects -----------------------------------------------------------------------------------

/**
 * Starts a project's deletion: refused while a job of the project runs; otherwise its keys and
 * console sessions are revoked and its storage connections deactivated at once (nothing can create
 * or read anything in it from here on), the project disappears from every route, and its data is
 * erased in batches: the first now, the rest by the scheduled run.
 */
export async function startProjectDeletion(
  env: Env,
  actor: AuditActor,
  workspaceId: string,
  projectId: string,
  opts: { deleteOutputs: boolean },
): Promise<AuditRow> {
  const db = getDb(env.DB);
  const project = await db
    .select()
    .from(projects)
    .where(and(eq(projects.id, projectId), eq(projects.workspaceId, workspaceId), isNull(projects.deletionStartedAt)))
    .get();
  if (!project) throw notFound(`project not found: ${projectId}`, [{ path: "projectId", issue: `notFound:${projectId}` }]);
  const running = await db
    .select({ id: jobs.id, status: jobs.status })
    .from(jobs)
    .where(and(eq(jobs.projectId, projectId), notInArray(jobs.status, [...TERMINAL_STATUSES])))
    .get();
  if (running) throw busy(`project ${projectId}`, running.id, running.status);
  const now = nowIso();
  await db.batch([
    db
      .update(apiKeys)
      .set({ revokedAt: now })
      .where(and(eq(apiKeys.projectId, projectId), isNull(apiKeys.revokedAt))),
    db.update(storageConnections).set({ status: "inactive", updatedAt: now }).where(eq(storageConnections.projectId, projectId)),
    // The name is freed for a new project at once (names are unique per workspace).
    db
      .update(projects)
      .set({ deletionStartedAt: now, name: `${project.name} (deleted ${projectId})` })
      .where(eq(projects.id, projectId)),
  ]);
  forgetKeys();
  const pending: ProjectErasure = { kind: "project", projectId, workspaceId, deleteOutputs: opts.deleteOutputs };
  return openAuditEvent(db, {
    workspaceId,
    projectId,
    action: "project.deleted",
    subject: { type: "project", id: projectId },
    actor,
    pending: { ...pending },
    details: { projectName: project.name },
  });
}

// ---- resuming -----------------------------------------------------------------------------------

/** Runs an unfinished entry on (a batch, for a project); answers whether it is now complete. */
export async function continueDeletion(env: Env, audit: AuditRow): Promise<boolean> {
  const db = getDb(env.DB);
  const pending = audit.pending as unknown as Pending | null;
  if (!pending) {
    await completeAuditEvent(db, audit.id, audit.details);
    return true;
  }
  if (pending.kind === "transcript") {
    await finish(db, audit, await eraseTranscript(env, pending));
    return true;
  }
  if (pending.kind === "job") {
    await finish(db, audit, await eraseJob(env, pending));
    return true;
  }
  const soFar = (audit.details["erased"] as ErasureTally | undefined) ?? null;
  const batch = await eraseProjectBatch(env, pending);
  const erased = soFar ? addTallies(soFar, batch.tally) : batch.tally;
  const details = { ...audit.details, erased };
  if (batch.done) await completeAuditEvent(db, audit.id, details);
  else await progressAuditEvent(db, audit.id, audit.pending ?? {}, details);
  return batch.done;
}
