import { z } from "zod";
import { Id } from "../request-fields";
import { COMMON_FAILURE_CODES, defineService } from "./types";

/** Chunks, embeds and indexes transcripts for catalog search (pipeline not built yet). */

export const INDEXER_MAX_IDS = 50;
export const IndexerInputSchema = z.strictObject({
  textSourceIds: z
    .array(Id("txt_"))
    .min(1, { message: "textSourceIds needs at least one id" })
    .max(INDEXER_MAX_IDS, { message: `textSourceIds takes at most ${INDEXER_MAX_IDS} ids` }),
});

export const indexerService = defineService({
  serviceType: "indexer",
  input: IndexerInputSchema,
  stages: ["fetch_transcription", "chunk", "embed_sparse", "embed_dense", "index", "cutover", "rollback"],
  steps: [],
  failureCodes: [...COMMON_FAILURE_CODES, "index_rollback"],
  nonRetryableCodes: ["index_rollback"],
});
