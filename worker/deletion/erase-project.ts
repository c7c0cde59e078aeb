import { and, eq, isNotNull } from "drizzle-orm";
import { collectionName } from "../../contracts/catalog";
import { catalogObject } from "../../durable-objects/catalog/address";
import { vectorStoreFor } from "../catalog/vector-store/factory";
import { getDb } from "../db/client";
import { transcripts, voices } from "../db/schema";
import type { Env } from "../env";
import { BLOB_ROOT } from "../storage/blobs";
import { deleteBucketFiles } from "./bucket-files";
import {
  addTallies,
  deleteBlobPrefixes,
  emptyTally,
  eraseJobObjects,
  eraseTranscript,
  jobRowStatements,
  type ErasureTally,
} from "./erase-transcript";
import { transcriptScope, type BucketFiles, type ErasedJob } from "./scope";
import { workflowStub } from "../workflows/stubs";

/**
 * A project's deletion, one bounded batch at a time (a project may hold thousands of transcripts):
 * its transcripts with everything made from them first (as their own deletions would), then the jobs
 * left, the voices, every other row keyed by the project, its catalog object, its objects in R2 and
 * finally the project row. Each batch starts where the data says the last one stopped, so batches
 * may run twice or be cut short without harm.
 */

export interface ProjectErasure {
  kind: "project";
  projectId: string;
  workspaceId: string;
  deleteOutputs: boolean;
}

/** Per batch: enough to finish small projects at once, small enough for one scheduled run. */
export const PROJECT_BATCH = { transcripts: 20, jobs: 200, chunks: 5000 } as const;

export async function eraseProjectBatch(env: Env, p: ProjectErasure): Promise<{ tally: ErasureTally; done: boolean }> {
  const db = getDb(env.DB);
  let tally = emptyTally();

  const some = await db.select().from(transcripts).where(eq(transcripts.projectId, p.projectId)).limit(PROJECT_BATCH.transcripts).all();
  for (const t of some) tally = addTallies(tally, await eraseTranscript(env, await transcriptScope(env, db, t, p.deleteOutputs)));
  if (some.length === PROJECT_BATCH.transcripts) return { tally, done: false };

  const left = await env.DB.prepare(
    `SELECT id, json_extract(data, '$.input.connectionId') AS connection_id, json_extract(data, '$.input.bucket') AS bucket,
            json_extract(data, '$.input.sourceType') AS source_type
       FROM jobs WHERE project_id = ?1 LIMIT ?2`,
  )
    .bind(p.projectId, PROJECT_BATCH.jobs)
    .all<{ id: string; connection_id: unknown; bucket: unknown; source_type: unknown }>();
  if (left.results.length > 0) {
    const list: ErasedJob[] = left.results.map((r) => ({
      jobId: r.id,
      connectionId: typeof r.connection_id === "string" && r.source_type !== "s3_presigned" ? r.connection_id : null,
      bucket: typeof r.bucket === "string" ? r.bucket : null,
    }));
    const scratch = await eraseJobObjects(env, list);
    await env.DB.batch(
      jobRowStatements(
        env,
        p.projectId,
        list.map((j) => j.jobId),
      ),
    );
    await deleteBucketFiles(env, db, p.projectId, scratch);
    tally = addTallies(tally, { ...emptyTally(), jobs: list.length });
    if (left.results.length === PROJECT_BATCH.jobs) return { tally, done: false };
  }

  // Voices made from a sample (`POST /v1/voices`): with deleteOutputs, their reference clips beside the sample.
  if (p.deleteOutputs) {
    const refs = await db
      .select({ id: voices.id, sample: voices.sample, referenceKey: voices.referenceKey, jobId: voices.jobId })
      .from(voices)
      .where(and(eq(voices.projectId, p.projectId), isNotNull(voices.referenceKey)))
      .all();
    const files: BucketFiles[] = refs.map((v) => ({
      what: `voice ${v.id} reference clip`,
      jobId: v.jobId,
      connectionId: typeof v.sample["connectionId"] === "string" ? v.sample["connectionId"] : null,
      bucket: typeof v.sample["bucket"] === "string" ? v.sample["bucket"] : null,
      keys: v.referenceKey ? [v.referenceKey] : [],
      keptReason: typeof v.sample["connectionId"] === "string" ? null : "the voice's sample was read through a presigned URL",
    }));
    const out = await deleteBucketFiles(env, db, p.projectId, files);
    tally = addTallies(tally, { ...emptyTally(), bucketFilesDeleted: out.deleted, bucketFilesKept: out.kept });
  }

  // The catalog object: whatever a failed index run left beside the transcripts already dropped.
  const catalog = catalogObject(env.CATALOG, collectionName(p.projectId));
  const store = vectorStoreFor(env);
  for (;;) {
    const r = await catalog.eraseSome(PROJECT_BATCH.chunks);
    if (!store.inObject && r.removedRowIds.length > 0) await store.remove(collectionName(p.projectId), r.removedRowIds);
    tally = addTallies(tally, { ...emptyTally(), catalogChunks: r.removedRowIds.length });
    if (r.empty) break;
  }

  // Workflows: each object's storage, then their rows (a batch at a time, as jobs are).
  const workflows = await env.DB.prepare("SELECT id FROM workflows WHERE project_id = ?1 LIMIT ?2")
    .bind(p.projectId, PROJECT_BATCH.jobs)
    .all<{ id: string }>();
  if (workflows.results.length > 0) {
    const ids = workflows.results.map((w) => w.id);
    for (const id of ids) await workflowStub(env, id).erase();
    const marks = ids.map(() => "?").join(",");
    await env.DB.batch([
      env.DB.prepare(`DELETE FROM workflow_jobs WHERE workflow_id IN (${marks})`).bind(...ids),
      env.DB.prepare(`DELETE FROM workflows WHERE id IN (${marks})`).bind(...ids),
    ]);
    // A full batch may have more behind it: the next batch goes on from there.
    if (ids.length === PROJECT_BATCH.jobs) return { tally, done: false };
  }

  const rows = (table: string, where = "project_id = ?1", key = p.projectId) =>
    env.DB.prepare(`DELETE FROM ${table} WHERE ${where}`).bind(key);
  await env.DB.batch([
    rows("voices"),
    rows("voice_consents"),
    rows("consent_phrases"),
    rows("glossary_terms"),
    rows("presets"),
    rows("idempotency_keys"),
    rows("webhook_deliveries"),
    rows("job_secrets"),
    rows("catalog_vectors", "collection = ?1", collectionName(p.projectId)),
    rows("catalog_chunks"),
    rows("catalog_entries"),
    rows("storage_connections"),
    rows("api_keys"),
  ]);
  tally = addTallies(tally, { ...emptyTally(), platformObjects: await deleteBlobPrefixes(env, [`${BLOB_ROOT}${p.projectId}/`]) });
  await env.DB.batch([rows("projects", "id = ?1")]);
  return { tally, done: true };
}
