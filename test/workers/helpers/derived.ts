import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { collectionName } from "../../../contracts/catalog";
import type { Job } from "../../../contracts/job";
import type { TranslationSource } from "../../../contracts/services/translation";
import { index } from "./catalog";
import { fakeRunner } from "./jobs";
import { putSource } from "./s3";
import type { Tenant } from "./tenant";
import { translationSaveBody } from "./transcripts";
import { createJob, metadataDraft, runRunnerStep, summaryDraft } from "./understanding";

/**
 * Records made from a transcript through the real service routes, the test playing each runner
 * step: a translation (its layer in R2, its files named in the bucket), metadata, a summary and the
 * catalog's chunks. For tests of what deleting a transcript takes with it.
 */

export interface Derived {
  translation: Job;
  metadata: Job;
  summary: Job;
  index: Job;
}

export async function translateThrough(t: Tenant, textSourceId: string, targetLanguage = "es"): Promise<Job> {
  const job = await createJob(t, "translation", { textSourceId, targetLanguage });
  return runRunnerStep(t, job, "translation", async (task) => {
    const source = (await fakeRunner.call<TranslationSource>(task, "translation.source", {})).body.data;
    const saved = await fakeRunner.call(task, "translation.save", translationSaveBody(source, job));
    if (saved.status !== 200) throw new Error(`translation.save failed: ${JSON.stringify(saved.body)}`);
    return {
      translationId: String(job.input["translationId"]),
      textSourceId,
      sourceLanguage: String(job.input["sourceLanguage"]),
      targetLanguage,
      languageKey: String(job.input["languageKey"]),
      sourceLayer: source.sourceLayer,
      segmentCount: source.segments.length,
      durationSec: source.durationSec,
      translationBackend: "apertium",
      model: "apertium:eng-spa",
    };
  });
}

export async function deriveEverything(t: Tenant, textSourceId: string): Promise<Derived> {
  const translation = await translateThrough(t, textSourceId);
  const metadata = await runRunnerStep(t, await createJob(t, "metadata", { textSourceId }), "metadata", async () => ({
    ...metadataDraft(),
  }));
  const summary = await runRunnerStep(
    t,
    await createJob(t, "summarization", { textSourceJobId: textSourceId }),
    "summarization",
    async () => ({
      ...summaryDraft(),
    }),
  );
  return { translation, metadata, summary, index: await index(t, [textSourceId]) };
}

/** Writes a small file at each key of the test bucket, as a runner writes its outputs. */
export async function writeOutputs(keys: readonly string[]): Promise<void> {
  for (const key of keys) await putSource(key);
}

/** Every key the job's Durable Object still stores (empty once erased). */
export async function jobObjectKeys(jobId: string): Promise<string[]> {
  return runInDurableObject(env.JOBS.get(env.JOBS.idFromName(jobId)), async (_, state) => [...(await state.storage.list()).keys()]);
}

/** Chunk rows of a transcript in its project's catalog object (every generation). */
export async function catalogRowsOf(projectId: string, textSourceId: string): Promise<number> {
  return runInDurableObject(
    env.CATALOG.get(env.CATALOG.idFromName(collectionName(projectId))),
    (_, state) => state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM chunks WHERE text_source_id = ?", textSourceId).one().n,
  );
}

/** Keys of the platform's R2 bucket under the project that name one of `ids`. */
export async function platformObjectsNaming(projectId: string, ids: readonly string[]): Promise<string[]> {
  const listed = await env.BLOBS.list({ prefix: `p/${projectId}/` });
  return listed.objects.map((o) => o.key).filter((k) => ids.some((id) => k.includes(id)));
}

/** Rows of each D1 table that name one of `ids` in any column given, by table. */
export async function d1RowsNaming(ids: readonly string[]): Promise<Record<string, number>> {
  const json = JSON.stringify(ids);
  const where = (cols: string[]) => cols.map((c) => `${c} IN (SELECT value FROM json_each(?1))`).join(" OR ");
  const tables: Record<string, string[]> = {
    transcripts: ["id"],
    transcript_layers: ["transcript_id"],
    translations: ["id", "text_source_id", "job_id"],
    clip_generations: ["id", "text_source_id", "job_id"],
    summarizations: ["id", "text_source_id", "job_id"],
    dubbings: ["id", "transcription_id", "job_id"],
    voices: ["id", "job_id"],
    voice_consents: ["id", "job_id"],
    jobs: ["id"],
    webhook_deliveries: ["job_id"],
    runner_tasks: ["job_id"],
    job_secrets: ["job_id"],
    idempotency_keys: ["job_id"],
    catalog_entries: ["text_source_id"],
    catalog_chunks: ["text_source_id"],
  };
  const out: Record<string, number> = {};
  for (const [table, cols] of Object.entries(tables)) {
    const n = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${where(cols)}`)
      .bind(json)
      .first<{ n: number }>();
    if ((n?.n ?? 0) > 0) out[table] = n?.n ?? 0;
  }
  return out;
}
