import { z } from "zod";
import { IndexerResultSchema } from "../catalog";
import { Id } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService, defineStep, INSUFFICIENT_DISK, SAFETY_FINAL_CODES } from "./types";

/**
 * Indexer: transcripts into the project's search collection. One runner step: it reads each
 * transcript, chunks it, embeds the chunks (the dense engine; the sparse side is the catalog object's
 * BM25 index, which tokenises the text it is written), and writes them through the runner calls `catalog.write`, then
 * `catalog.cutover` (the new generation goes live, the previous one is removed). A failure after the
 * first write calls `catalog.rollback` and fails the job with `index_rollback`: the previous
 * generation never stopped answering.
 */

export const INDEXER_MAX_IDS = 50;
export const IndexerInputSchema = z.strictObject({
  textSourceIds: z
    .array(Id("txt_"))
    .min(1, { message: "textSourceIds needs at least one id" })
    .max(INDEXER_MAX_IDS, { message: `textSourceIds takes at most ${INDEXER_MAX_IDS} ids` }),
});

/** An indexer job's stored input: the request's ids, each named once, in the request's order. */
export const IndexerStoredSchema = z.object({ textSourceIds: z.array(z.string().min(1)).min(1) });
export type IndexerStored = z.infer<typeof IndexerStoredSchema>;

export const INDEXER_STAGES = ["fetch_transcription", "chunk", "embed_sparse", "embed_dense", "index", "cutover", "rollback"] as const;

export const indexStep = defineStep({
  name: "index",
  executor: "runner",
  handler: "indexer",
  stages: INDEXER_STAGES,
  result: IndexerResultSchema,
});

const FINAL_CODES = ["index_rollback", "source_not_found", "no_segments"];

export const indexerService = defineService({
  serviceType: "indexer",
  input: IndexerInputSchema,
  stored: IndexerStoredSchema,
  stages: INDEXER_STAGES,
  steps: [indexStep],
  failureCodes: [...COMMON_FAILURE_CODES, INSUFFICIENT_DISK, "engine_unavailable", ...FINAL_CODES, ...SAFETY_FINAL_CODES],
  nonRetryableCodes: [...FINAL_CODES, ...SAFETY_FINAL_CODES],
});
