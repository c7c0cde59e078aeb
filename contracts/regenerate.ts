import { z } from "zod";
import { Id, LanguageCodeSchema } from "./request-fields";

/**
 * `POST /v1/transcriptions/{transcriptionId}/regenerate` (docs/api.md, "Stale outputs and regenerate"):
 * the outputs of a transcript to bring up to its current revision. Each is `true` (regenerate it),
 * `"stale"` (only if it reads stale), or for translations and dubbings a list of which ones. The whole
 * of `outputs` may be `"stale"`: every output that reads stale.
 */

/** Regenerate it (`true`), only if it is stale (`"stale"`), or leave it (`false`, or leave the field out). */
const One = z.union([z.boolean(), z.literal("stale")]);

export const REGENERATE_MAX_TARGETS = 20;

export const RegenerateOutputsSchema = z.strictObject({
  /** The transcript's own files in the bucket (`outputKeys`): rewritten from the current segments by a `transcript_files` job. */
  files: One.optional(),
  /** The translations by target language (each one the transcript has), or `"stale"`: every stale one. */
  translations: z.union([z.literal("stale"), z.array(LanguageCodeSchema).min(1).max(REGENERATE_MAX_TARGETS)]).optional(),
  /** The transcript's catalog entry (an `indexer` job). */
  index: One.optional(),
  /** The metadata record (a `metadata` job). */
  metadata: One.optional(),
  /** The latest summary (a `summarization` job). */
  summary: One.optional(),
  /** Dubbings by id (each one of the transcript's), or `"stale"`: the newest dub of each language, when stale. */
  dubbings: z.union([z.literal("stale"), z.array(Id("dub_")).min(1).max(REGENERATE_MAX_TARGETS)]).optional(),
});
export type RegenerateOutputs = z.infer<typeof RegenerateOutputsSchema>;

export const RegenerateRequestSchema = z.strictObject({ outputs: z.union([z.literal("stale"), RegenerateOutputsSchema]) });
export type RegenerateRequest = z.infer<typeof RegenerateRequestSchema>;

export const REGENERATE_OUTPUTS = ["files", "translations", "index", "metadata", "summary", "dubbings"] as const;
export type RegenerateOutput = (typeof REGENERATE_OUTPUTS)[number];

/** What a record made from a transcript answers of its freshness (worker/transcripts/staleness.ts), for the API's description. */
export const StalenessFields = {
  transcriptRevision: z
    .number()
    .int()
    .nullable()
    .describe("The transcript revision the record was made from; null while pending, or when made before revisions were noted."),
  currentRevision: z.number().int().nullable().describe("The transcript's revision now; null when the transcript is gone."),
  stale: z
    .boolean()
    .nullable()
    .describe("True when the transcript changed since the record was made (currentRevision > transcriptRevision); null when unknown."),
};

/** The transcript's own files (`outputKeys`): the revision they hold, and whether an edit passed them. */
export const OutputKeysStalenessFields = {
  outputKeysRevision: z.number().int().nullable().describe("The transcript revision the files under outputKeys hold; null without files."),
  outputKeysStale: z.boolean().nullable().describe("True when the transcript was edited after its files were written; null without files."),
};
