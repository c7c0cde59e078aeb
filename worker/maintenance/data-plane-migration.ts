import { getDb, type Db } from "../db/client";
import { MIGRATION_DEFAULT_LIMIT, type MigrationBatch, type PhaseProgress } from "./migration-batch";
import { transcriptLayers } from "../db/schema";
import type { Env } from "../env";
import { blobStore, type BlobStore } from "../storage/blobs";
import { moveLegacyLayers } from "../transcripts/legacy-layers";
import { moveLegacyClipResult } from "../services/clip-generation/store";
import { moveLegacyDubbing } from "../services/dubbing/store";
import { moveLegacyMetadata } from "../services/metadata/store";
import { moveLegacySummary } from "../services/summarization/store";
import { moveLegacyThumbnails } from "../services/thumbnail/store";
import { moveLegacyCatalogEntry } from "../catalog/legacy-catalog";
import { vectorStoreFor } from "../catalog/vector-store/factory";
import { collectionName } from "../../contracts/catalog";
import { catalogObject } from "../../durable-objects/catalog/address";

/**
 * Moves an existing deployment's data into the layout issue 23 introduced: bulk JSON from D1 into
 * the BLOBS bucket, each project's catalog from D1 into its catalog Durable Object. Run by the
 * operator (`npm run admin -- migrate-data-plane`, docs/deploy.md), one bounded batch per call.
 *
 * Resumable and idempotent by construction: every phase looks for what is still in the old layout
 * (legacy rows), and every move removes the legacy copy in the same D1 batch that sets the pointer,
 * so a batch that dies half way leaves nothing to undo and the next call picks up what remains. The
 * service keeps answering meanwhile: every reader falls back to the old layout until its row moved.
 */

interface MigrationContext {
  env: Env;
  db: Db;
  blobs: BlobStore;
}

/** One phase: move up to `limit` owners, answer how many moved and whether any remain. */
type Phase = (m: MigrationContext, limit: number) => Promise<PhaseProgress>;

const transcriptsPhase: Phase = async ({ db, blobs }, limit) => {
  const ids = await db
    .selectDistinct({ id: transcriptLayers.transcriptId })
    .from(transcriptLayers)
    .limit(limit + 1)
    .all();
  const batch = ids.slice(0, limit);
  for (const { id } of batch) await moveLegacyLayers(db, blobs, id);
  return { moved: batch.length, remaining: ids.length > limit };
};

/**
 * A phase over rows still in the old layout: `legacy` selects their ids (`?1` is the page size), the
 * same condition the move checks, so a row the move skips is never selected twice by mistake.
 */
const legacyRows =
  (legacy: string, move: (m: MigrationContext, id: string) => Promise<boolean>): Phase =>
  async (m, limit) => {
    const rows = await m.env.DB.prepare(legacy)
      .bind(limit + 1)
      .all<{ id: string }>();
    const batch = rows.results.slice(0, limit);
    let moved = 0;
    for (const { id } of batch) if (await move(m, id)) moved++;
    return { moved, remaining: rows.results.length > limit || moved < batch.length };
  };

/** Each project's catalog entries, one transcript at a time, into the project's catalog object. */
const catalogPhase: Phase = async ({ env }, limit) => {
  const rows = await env.DB.prepare("SELECT project_id, text_source_id FROM catalog_entries LIMIT ?1")
    .bind(limit + 1)
    .all<{ project_id: string; text_source_id: string }>();
  const batch = rows.results.slice(0, limit);
  const store = vectorStoreFor(env);
  // Each project's object is asked for its entries once per batch, not once per transcript.
  const inObject = new Map<string, Set<string>>();
  for (const r of batch) {
    let indexed = inObject.get(r.project_id);
    if (!indexed) {
      const entries = await catalogObject(env.CATALOG, collectionName(r.project_id)).entries();
      indexed = new Set(entries.map((e) => e.textSourceId));
      inObject.set(r.project_id, indexed);
    }
    await moveLegacyCatalogEntry(env, store, r.project_id, r.text_source_id, indexed);
  }
  return { moved: batch.length, remaining: rows.results.length > limit };
};

/**
 * Chunks no catalog entry names any more (generations an upgrade interrupted before their cutover):
 * nothing reads them, so they are deleted with their vectors, `limit` × 20 rows a call.
 */
const catalogLeftoversPhase: Phase = async ({ env }, limit) => {
  const rows = await env.DB.prepare(
    "SELECT c.id FROM catalog_chunks c WHERE NOT EXISTS (SELECT 1 FROM catalog_entries e WHERE e.project_id = c.project_id AND e.text_source_id = c.text_source_id) LIMIT ?1",
  )
    .bind(limit * 20 + 1)
    .all<{ id: number }>();
  const batch = JSON.stringify(rows.results.slice(0, limit * 20).map((r) => r.id));
  await env.DB.batch([
    env.DB.prepare("DELETE FROM catalog_vectors WHERE chunk_row_id IN (SELECT value FROM json_each(?))").bind(batch),
    env.DB.prepare("DELETE FROM catalog_chunks WHERE id IN (SELECT value FROM json_each(?))").bind(batch),
  ]);
  return { moved: Math.min(rows.results.length, limit * 20), remaining: rows.results.length > limit * 20 };
};

/** In order: a phase's owners are independent of the others', so the order only sets what moves first. */
const PHASES: Record<string, Phase> = {
  transcriptLayers: transcriptsPhase,
  clipResults: legacyRows("SELECT id FROM clip_generations WHERE result IS NOT NULL AND result_key IS NULL LIMIT ?1", (m, id) =>
    moveLegacyClipResult(m.env, id),
  ),
  dubbingResults: legacyRows("SELECT id FROM dubbings WHERE result IS NOT NULL AND result_key IS NULL LIMIT ?1", (m, id) =>
    moveLegacyDubbing(m.env, id),
  ),
  summaryResults: legacyRows("SELECT id FROM summarizations WHERE result IS NOT NULL AND result_key IS NULL LIMIT ?1", (m, id) =>
    moveLegacySummary(m.env, id),
  ),
  metadataRecords: legacyRows("SELECT id FROM transcripts WHERE metadata IS NOT NULL AND metadata_key IS NULL LIMIT ?1", (m, id) =>
    moveLegacyMetadata(m.env, m.db, id),
  ),
  catalogEntries: catalogPhase,
  catalogLeftovers: catalogLeftoversPhase,
  thumbnailSets: legacyRows("SELECT id FROM transcripts WHERE thumbnails IS NOT NULL AND thumbnails != '[]' LIMIT ?1", (m, id) =>
    moveLegacyThumbnails(m.env, id),
  ),
};

export async function migrateDataPlaneBatch(env: Env, limit = MIGRATION_DEFAULT_LIMIT): Promise<MigrationBatch> {
  const m: MigrationContext = { env, db: getDb(env.DB), blobs: blobStore(env.BLOBS) };
  const phases: Record<string, PhaseProgress> = {};
  for (const [name, phase] of Object.entries(PHASES)) phases[name] = await phase(m, limit);
  return { phases, done: Object.values(phases).every((p) => !p.remaining) };
}
