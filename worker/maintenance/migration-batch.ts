import { z } from "zod";

/**
 * The shapes of the data-plane migration's operator route (`POST /admin/v1/maintenance/
 * data-plane-migration`, worker/maintenance/data-plane-migration.ts), apart from the code that moves
 * data, so the OpenAPI document is built without loading it.
 */

export const PhaseProgressSchema = z.object({
  moved: z.number().int().describe("Owners (transcripts, records, projects) moved in this batch."),
  remaining: z.boolean().describe("Whether owners in the old layout remain after this batch."),
});
export type PhaseProgress = z.infer<typeof PhaseProgressSchema>;

export const MigrationBatchSchema = z.object({
  phases: z.record(z.string(), PhaseProgressSchema),
  done: z.boolean().describe("Nothing in the old layout remains."),
});
export type MigrationBatch = z.infer<typeof MigrationBatchSchema>;

/** Owners per phase per call: each owner is a few R2 writes and one D1 batch. */
export const MIGRATION_DEFAULT_LIMIT = 25;
export const MIGRATION_MAX_LIMIT = 200;
export const MigrationRequestSchema = z.strictObject({ limit: z.number().int().min(1).max(MIGRATION_MAX_LIMIT).optional() });
