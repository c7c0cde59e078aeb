import { eq } from "drizzle-orm";
import { nowIso } from "../../../contracts/clock";
import type { SummarizationStepResult } from "../../../contracts/services/summarization";
import type { Db } from "../../db/client";
import { summarizations } from "../../db/schema";
import type { Env } from "../../env";
import { blobKey, blobStore } from "../../storage/blobs";
import { moveLegacyResult, readPointed, writeThenPoint } from "../shared/record-blob";

/**
 * The summarization record's draft (synopses, hooks, keywords, classification) lives in R2 (kind
 * `summary`, one object per save); the `sum_` row keeps its status, configuration and the pointer.
 */

export const SUMMARY_BLOB_KIND = "summary";

type SummaryRow = typeof summarizations.$inferSelect;

/** Completes the record with the runner's draft; a redelivered save moves the pointer to an identical object. */
export async function saveSummaryResult(env: Env, db: Db, projectId: string, id: string, r: SummarizationStepResult): Promise<void> {
  await writeThenPoint(blobStore(env.BLOBS), blobKey(projectId, SUMMARY_BLOB_KIND, id, "result"), r, async (resultKey) => {
    const before = await db.select({ key: summarizations.resultKey }).from(summarizations).where(eq(summarizations.id, id)).get();
    const updated = await db
      .update(summarizations)
      .set({ status: "completed", result: null, resultKey, updatedAt: nowIso() })
      .where(eq(summarizations.id, id))
      .returning({ id: summarizations.id });
    return { landed: updated.length > 0, previous: before?.key ?? null };
  });
}

/** The record's draft: its object, or the D1 copy of a row the previous version wrote; null while pending. */
export async function summaryResultOf(env: Env, row: SummaryRow): Promise<Record<string, unknown> | null> {
  return readPointed(blobStore(env.BLOBS), row.resultKey, row.result, `summarization ${row.id}`);
}

/**
 * Moves a row the previous version wrote (its draft in D1) into R2 and clears the D1 copy. Idempotent:
 * a row already moved, or with no draft, is left as it is; answers whether this call moved it.
 */
export async function moveLegacySummary(env: Env, id: string): Promise<boolean> {
  return moveLegacyResult(env, "summarizations", SUMMARY_BLOB_KIND, id);
}
