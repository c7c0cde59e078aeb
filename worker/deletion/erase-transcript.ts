import { collectionName } from "../../contracts/catalog";
import { dropTranscript } from "../catalog/index-writer";
import { vectorStoreFor } from "../catalog/vector-store/factory";
import { getDb } from "../db/client";
import type { Env } from "../env";
import { conflict } from "../errors";
import { jobStub } from "../jobs/stubs";
import { blobStore } from "../storage/blobs";
import { deleteBucketFiles, scratchFiles, type BucketOutcome } from "./bucket-files";
import type { BucketFiles, ErasedJob, TranscriptScope } from "./scope";

/**
 * Carries out a transcript's deletion from its scope (scope.ts). Every step can run again after a
 * stop and changes nothing twice, in an order that never lets a store bring back what another lost:
 * 1. the jobs' Durable Objects first (a job object that still held its state could write its row back);
 * 2. the catalog (chunks, sparse index, vectors);
 * 3. the D1 rows, in one batch;
 * 4. the platform's objects (R2), by owner prefix;
 * 5. files in the customer's bucket: the jobs' scratch, and with `deleteOutputs` their outputs.
 */

export interface ErasureTally {
  jobs: number;
  records: Record<string, number>;
  catalogChunks: number;
  platformObjects: number;
  bucketFilesDeleted: number;
  bucketFilesKept: BucketOutcome["kept"];
}

export const emptyTally = (): ErasureTally => ({
  jobs: 0,
  records: {},
  catalogChunks: 0,
  platformObjects: 0,
  bucketFilesDeleted: 0,
  bucketFilesKept: [],
});

export function addTallies(a: ErasureTally, b: ErasureTally): ErasureTally {
  const records = { ...a.records };
  for (const [k, n] of Object.entries(b.records)) records[k] = (records[k] ?? 0) + n;
  return {
    jobs: a.jobs + b.jobs,
    records,
    catalogChunks: a.catalogChunks + b.catalogChunks,
    platformObjects: a.platformObjects + b.platformObjects,
    bucketFilesDeleted: a.bucketFilesDeleted + b.bucketFilesDeleted,
    // Bounded: a project's deletion may keep thousands of presigned outputs; the count says how many.
    bucketFilesKept: [...a.bucketFilesKept, ...b.bucketFilesKept].slice(0, 100),
  };
}

/** Step 1 for any set of finished jobs: their objects' state, answering their scratch files. */
export async function eraseJobObjects(env: Env, list: readonly ErasedJob[]): Promise<BucketFiles[]> {
  const scratch: BucketFiles[] = [];
  for (const job of list) {
    const outcome = await jobStub(env, job.jobId).erase();
    if (!outcome.erased)
      throw conflict(`job ${job.jobId} is ${outcome.status}: it must finish (or be cancelled) before it can be deleted`, [
        { path: "jobId", issue: `inUseBy:${job.jobId}` },
      ]);
    const files = scratchFiles(job, outcome.artifacts);
    if (files) scratch.push(files);
  }
  return scratch;
}

/** Step 3's statements for jobs: their rows and every row keyed by them. */
export function jobRowStatements(env: Pick<Env, "DB">, projectId: string, jobIds: readonly string[]): D1PreparedStatement[] {
  const ids = JSON.stringify(jobIds);
  const inIds = "IN (SELECT value FROM json_each(?1))";
  return [
    env.DB.prepare(`DELETE FROM jobs WHERE project_id = ?2 AND id ${inIds}`).bind(ids, projectId),
    env.DB.prepare(`DELETE FROM webhook_deliveries WHERE project_id = ?2 AND job_id ${inIds}`).bind(ids, projectId),
    env.DB.prepare(`DELETE FROM runner_tasks WHERE job_id ${inIds}`).bind(ids),
    env.DB.prepare(`DELETE FROM job_secrets WHERE project_id = ?2 AND job_id ${inIds}`).bind(ids, projectId),
    env.DB.prepare(`DELETE FROM idempotency_keys WHERE project_id = ?2 AND job_id ${inIds}`).bind(ids, projectId),
  ];
}

/** Step 4: every object under each prefix of the platform's bucket; answers how many went. */
export async function deleteBlobPrefixes(env: Pick<Env, "BLOBS">, prefixes: readonly string[]): Promise<number> {
  const store = blobStore(env.BLOBS);
  let n = 0;
  for (const prefix of prefixes) {
    let cursor: string | undefined;
    do {
      const page = await env.BLOBS.list({ prefix, ...(cursor ? { cursor } : {}) });
      const keys = page.objects.map((o) => o.key);
      await store.delete(keys);
      n += keys.length;
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor);
  }
  return n;
}

export async function eraseTranscript(env: Env, scope: TranscriptScope): Promise<ErasureTally> {
  const db = getDb(env.DB);
  const { projectId, transcriptId } = scope;
  const scratch = await eraseJobObjects(env, scope.jobs);

  const dropped = await dropTranscript({ catalog: env.CATALOG, store: vectorStoreFor(env), projectId }, transcriptId);

  const json = (ids: readonly string[]) => JSON.stringify(ids);
  const inIds = "IN (SELECT value FROM json_each(?1))";
  const r = scope.records;
  await env.DB.batch([
    env.DB.prepare("DELETE FROM transcripts WHERE id = ?1 AND project_id = ?2").bind(transcriptId, projectId),
    env.DB.prepare("DELETE FROM transcript_layers WHERE transcript_id = ?1").bind(transcriptId),
    env.DB.prepare(`DELETE FROM translations WHERE project_id = ?2 AND id ${inIds}`).bind(json(r.translations), projectId),
    env.DB.prepare(`DELETE FROM clip_generations WHERE project_id = ?2 AND id ${inIds}`).bind(json(r.clipGenerations), projectId),
    env.DB.prepare(`DELETE FROM summarizations WHERE project_id = ?2 AND id ${inIds}`).bind(json(r.summarizations), projectId),
    env.DB.prepare(`DELETE FROM dubbings WHERE project_id = ?2 AND id ${inIds}`).bind(json(r.dubbings), projectId),
    env.DB.prepare(`DELETE FROM voices WHERE project_id = ?2 AND id ${inIds}`).bind(json(r.voices), projectId),
    env.DB.prepare(`DELETE FROM consent_phrases WHERE project_id = ?2 AND used_by ${inIds}`).bind(json(r.voiceConsents ?? []), projectId),
    env.DB.prepare(`DELETE FROM voice_consents WHERE project_id = ?2 AND id ${inIds}`).bind(json(r.voiceConsents ?? []), projectId),
    // The previous version's catalog in D1 (moved into the catalog object by the data-plane migration).
    env.DB.prepare("DELETE FROM catalog_vectors WHERE collection = ?1 AND text_source_id = ?2").bind(
      collectionName(projectId),
      transcriptId,
    ),
    env.DB.prepare("DELETE FROM catalog_chunks WHERE project_id = ?1 AND text_source_id = ?2").bind(projectId, transcriptId),
    env.DB.prepare("DELETE FROM catalog_entries WHERE project_id = ?1 AND text_source_id = ?2").bind(projectId, transcriptId),
    ...jobRowStatements(
      env,
      projectId,
      scope.jobs.map((j) => j.jobId),
    ),
  ]);

  const platformObjects = await deleteBlobPrefixes(env, scope.blobPrefixes);
  // Scratch is normally gone when a job ends; this removes what a failed cleanup left. Not counted as outputs.
  await deleteBucketFiles(env, db, projectId, scratch);
  const bucket = await deleteBucketFiles(env, db, projectId, scope.outputs ?? []);
  return {
    jobs: scope.jobs.length,
    records: {
      transcripts: 1,
      translations: r.translations.length,
      clipGenerations: r.clipGenerations.length,
      summarizations: r.summarizations.length,
      dubbings: r.dubbings.length,
      voices: r.voices.length,
      voiceConsents: r.voiceConsents?.length ?? 0,
    },
    catalogChunks: dropped?.removedChunks ?? 0,
    platformObjects,
    bucketFilesDeleted: bucket.deleted,
    bucketFilesKept: bucket.kept,
  };
}
