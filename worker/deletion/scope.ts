import { and, eq, inArray } from "drizzle-orm";
import { isTerminal, type JobStatus } from "../../contracts/service-types";
import type { Db } from "../db/client";
import { clipGenerations, dubbings, summarizations, translations, voices } from "../db/schema";
import type { Env } from "../env";
import { CLIPS_BLOB_KIND, clipResultOf } from "../services/clip-generation/store";
import { DUBBING_BLOB_KIND, dubbingResultOf } from "../services/dubbing/store";
import { METADATA_BLOB_KIND } from "../services/metadata/store";
import { SUMMARY_BLOB_KIND } from "../services/summarization/store";
import { readThumbnails, THUMBNAILS_BLOB_KIND } from "../services/thumbnail/store";
import { ownerPrefix } from "../storage/blobs";
import { TRANSCRIPTS_KIND } from "../transcripts/layers";
import type { TranscriptRow } from "../transcripts/lookup";

/**
 * What deleting a transcript covers (docs/api.md "Your data"): the transcript, every record made
 * from it (translations, clip generations, summaries, dubbings and the voices those dubbings made),
 * its metadata and thumbnails, the jobs that made them (rows and Durable Object state), their objects
 * in the platform's storage, its catalog chunks, and, when asked, the files those jobs wrote into
 * the customer's bucket. Worked out once, before anything is erased, and stored with the audit entry
 * so a deletion that stops half-way is finished from the same list.
 */

/** A job the deletion erases, with the bucket its files and scratch objects are in (null: it had none, or presigned URLs). */
export interface ErasedJob {
  jobId: string;
  connectionId: string | null;
  bucket: string | null;
}

/** Files in the customer's bucket that the deletion removes (or cannot: `keptReason`). */
export interface BucketFiles {
  /** What they are, for the answer and the audit entry: `transcript files`, `translation trl_…`, … */
  what: string;
  jobId: string;
  connectionId: string | null;
  bucket: string | null;
  keys: string[];
  /** Set when the service holds no way to delete them (presigned URLs). */
  keptReason: string | null;
}

export interface TranscriptScope {
  kind: "transcript";
  projectId: string;
  transcriptId: string;
  records: {
    translations: string[];
    clipGenerations: string[];
    summarizations: string[];
    dubbings: string[];
    voices: string[];
    /** Consents to clone its speakers' voices (personal data about them); absent in a scope stored before consents. */
    voiceConsents?: string[];
  };
  jobs: ErasedJob[];
  blobPrefixes: string[];
  /** Null: the files in the bucket stay (no `deleteOutputs`). */
  outputs: BucketFiles[] | null;
}

/** A job of the project that is not finished and uses the transcript: the deletion waits for it (409). */
export interface BusyJob {
  jobId: string;
  status: string;
}

const PRESIGNED_KEPT =
  "written through presigned URLs the customer gave; the service holds no credential for that bucket and cannot delete them";

interface JobRef {
  id: string;
  status: string;
  connectionId: string | null;
  bucket: string | null;
  sourceType: string | null;
}

/**
 * The project's jobs that name the transcript in their input (`textSourceId`, `transcriptionId`, or
 * a `textSourceIds` list holding it), or made one of `madeBy`'s records. One statement over the
 * project's rows (their input is JSON in `data`).
 */
async function jobsTouching(env: Pick<Env, "DB">, projectId: string, transcriptId: string, madeBy: readonly string[]) {
  const rows = await env.DB.prepare(
    `SELECT id, status,
            json_extract(data, '$.input.connectionId') AS connection_id,
            json_extract(data, '$.input.bucket') AS bucket,
            json_extract(data, '$.input.sourceType') AS source_type,
            (SELECT count(*) FROM json_each(json_extract(jobs.data, '$.input.textSourceIds'))) AS named_sources
       FROM jobs
      WHERE project_id = ?1
        AND (json_extract(data, '$.input.textSourceId') = ?2
          OR json_extract(data, '$.input.transcriptionId') = ?2
          OR EXISTS (SELECT 1 FROM json_each(json_extract(jobs.data, '$.input.textSourceIds')) WHERE value = ?2)
          OR id IN (SELECT value FROM json_each(?3)))`,
  )
    .bind(projectId, transcriptId, JSON.stringify(madeBy))
    .all<{ id: string; status: string; connection_id: unknown; bucket: unknown; source_type: unknown; named_sources: number }>();
  return rows.results.map((r) => ({
    ref: {
      id: r.id,
      status: r.status,
      connectionId: typeof r.connection_id === "string" ? r.connection_id : null,
      bucket: typeof r.bucket === "string" ? r.bucket : null,
      sourceType: typeof r.source_type === "string" ? r.source_type : null,
    } satisfies JobRef,
    // An index job over several transcripts holds only their ids: it stays when one of them goes.
    sharedWithOthers: r.named_sources > 1,
  }));
}

/** The unfinished jobs that use the transcript (or will make a record from it): empty when it may go. */
export async function jobsUsingTranscript(env: Pick<Env, "DB">, t: TranscriptRow): Promise<BusyJob[]> {
  const touching = await jobsTouching(env, t.projectId, t.id, [t.jobId]);
  return touching.filter((j) => !isTerminal(j.ref.status as JobStatus)).map((j) => ({ jobId: j.ref.id, status: j.ref.status }));
}

export async function transcriptScope(env: Env, db: Db, t: TranscriptRow, deleteOutputs: boolean): Promise<TranscriptScope> {
  const [trl, clp, sum, dub] = await Promise.all([
    db
      .select()
      .from(translations)
      .where(and(eq(translations.projectId, t.projectId), eq(translations.textSourceId, t.id)))
      .all(),
    db
      .select()
      .from(clipGenerations)
      .where(and(eq(clipGenerations.projectId, t.projectId), eq(clipGenerations.textSourceId, t.id)))
      .all(),
    db
      .select({ id: summarizations.id, jobId: summarizations.jobId })
      .from(summarizations)
      .where(and(eq(summarizations.projectId, t.projectId), eq(summarizations.textSourceId, t.id)))
      .all(),
    db
      .select()
      .from(dubbings)
      .where(and(eq(dubbings.projectId, t.projectId), eq(dubbings.transcriptionId, t.id)))
      .all(),
  ]);
  const dubJobs = dub.map((d) => d.jobId);
  // Voices a dubbing of this transcript made from its speakers: their voices are personal data made from it.
  const madeVoices =
    dubJobs.length === 0
      ? []
      : await db
          .select({ id: voices.id, jobId: voices.jobId, referenceKey: voices.referenceKey })
          .from(voices)
          .where(and(eq(voices.projectId, t.projectId), eq(voices.origin, "dubbing"), inArray(voices.jobId, dubJobs)))
          .all();
  // Its speakers' consents (subject keys `speaker:<txt>:<label>`: one indexed range), and the jobs that checked them.
  const consents = await env.DB.prepare(
    "SELECT id, job_id FROM voice_consents WHERE project_id = ?1 AND subject_key >= ?2 AND subject_key < ?3",
  )
    .bind(t.projectId, `speaker:${t.id}:`, `speaker:${t.id};`)
    .all<{ id: string; job_id: string | null }>();
  const madeBy = [
    t.jobId,
    ...trl.map((r) => r.jobId),
    ...clp.map((r) => r.jobId),
    ...sum.map((r) => r.jobId),
    ...dubJobs,
    ...consents.results.flatMap((c) => (c.job_id ? [c.job_id] : [])),
  ];
  const touching = await jobsTouching(env, t.projectId, t.id, madeBy);
  const erasedJobs = touching.filter((j) => !j.sharedWithOthers || madeBy.includes(j.ref.id)).map((j) => j.ref);
  const jobOf = new Map(erasedJobs.map((j) => [j.id, j]));

  const blobPrefixes = [
    ownerPrefix(t.projectId, TRANSCRIPTS_KIND, t.id),
    ownerPrefix(t.projectId, METADATA_BLOB_KIND, t.id),
    ownerPrefix(t.projectId, THUMBNAILS_BLOB_KIND, t.id),
    ...clp.map((r) => ownerPrefix(t.projectId, CLIPS_BLOB_KIND, r.id)),
    ...sum.map((r) => ownerPrefix(t.projectId, SUMMARY_BLOB_KIND, r.id)),
    ...dub.map((r) => ownerPrefix(t.projectId, DUBBING_BLOB_KIND, r.id)),
  ];

  let outputs: BucketFiles[] | null = null;
  if (deleteOutputs) {
    const files = (what: string, jobId: string, keys: readonly (string | null | undefined)[]): BucketFiles => {
      const job = jobOf.get(jobId);
      const presigned = job?.sourceType === "s3_presigned" || !job?.connectionId || !job.bucket;
      return {
        what,
        jobId,
        connectionId: presigned ? null : (job?.connectionId ?? null),
        bucket: presigned ? null : (job?.bucket ?? null),
        keys: keys.filter((k): k is string => typeof k === "string" && k.length > 0),
        keptReason: presigned ? PRESIGNED_KEPT : null,
      };
    };
    outputs = [
      files("transcript files", t.jobId, Object.values(t.outputKeys ?? {})),
      ...trl.map((r) => files(`translation ${r.id}`, r.jobId, [r.outputKeys.srt, r.outputKeys.vtt])),
      ...(await Promise.all(clp.map(async (r) => files(`clip generation ${r.id}`, r.jobId, clipKeys(await clipResultOf(env, r)))))),
      ...(await Promise.all(dub.map(async (r) => files(`dubbing ${r.id}`, r.jobId, dubbingKeys(await dubbingResultOf(env, r)))))),
      ...madeVoices.map((v) => files(`voice ${v.id} reference clip`, v.jobId, [v.referenceKey])),
      ...(await thumbnailFiles(env, t, files)),
    ].filter((f) => f.keys.length > 0);
  }

  return {
    kind: "transcript",
    projectId: t.projectId,
    transcriptId: t.id,
    records: {
      translations: trl.map((r) => r.id),
      clipGenerations: clp.map((r) => r.id),
      summarizations: sum.map((r) => r.id),
      dubbings: dub.map((r) => r.id),
      voices: madeVoices.map((v) => v.id),
      voiceConsents: consents.results.map((c) => c.id),
    },
    jobs: erasedJobs.map((j) => ({ jobId: j.id, connectionId: j.connectionId, bucket: j.bucket })),
    blobPrefixes,
    outputs,
  };
}

/** Each clip's video and poster. */
function clipKeys(result: Record<string, unknown> | null): string[] {
  const clips = Array.isArray(result?.["clips"]) ? (result["clips"] as unknown[]) : [];
  return clips.flatMap((c) => {
    const clip = (c ?? {}) as Record<string, unknown>;
    return [clip["videoKey"], clip["posterKey"]].filter((k): k is string => typeof k === "string");
  });
}

/** Every artifact the dub wrote (audio stems, mix, video). */
function dubbingKeys(result: Record<string, unknown> | null): string[] {
  const artifacts = (result?.["artifacts"] ?? {}) as Record<string, unknown>;
  return Object.values(artifacts).filter((k): k is string => typeof k === "string");
}

/** The thumbnails' images, grouped by the run (job) that wrote them. */
async function thumbnailFiles(
  env: Env,
  t: TranscriptRow,
  files: (what: string, jobId: string, keys: readonly string[]) => BucketFiles,
): Promise<BucketFiles[]> {
  const all = (await readThumbnails(env, t)) as Array<Record<string, unknown>>;
  const byJob = new Map<string, string[]>();
  for (const th of all) {
    const key = th["key"];
    const jobId = th["jobId"];
    if (typeof key !== "string" || typeof jobId !== "string") continue;
    byJob.set(jobId, [...(byJob.get(jobId) ?? []), key]);
  }
  return [...byJob].map(([jobId, keys]) => files(`thumbnails of ${jobId}`, jobId, keys));
}
