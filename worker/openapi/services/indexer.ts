import { z } from "zod";
import { SearchRequestSchema } from "../../../contracts/catalog";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/indexer/routes.ts: catalog search and inventory. */

const TAG = "Catalog";

export const indexerOperations = operations([
  {
    method: "post",
    path: "/v1/catalog/search",
    tag: TAG,
    summary: "Search the catalog",
    description:
      "Hybrid (dense + sparse, fused by reciprocal rank fusion, the first candidates then reordered by a reranker), dense or sparse search over the project's indexed transcripts.",
    access: "project",
    permission: "ai:search",
    body: SearchRequestSchema,
    bodyExample: { query: "pricing of the new plan", limit: 5 },
    data: z.object({ query: z.string(), mode: z.string(), results: z.array(z.record(z.string(), z.unknown())), groups: z.unknown() }),
    metadataDescription:
      "Retrieval figures (engines, `reranker` or `rerankFailed`, candidates), `tookMs`, and `warnings` (e.g. dense retrieval or reranking unavailable).",
    errors: ["serviceNotAvailable"],
  },
  {
    method: "get",
    path: "/v1/catalog/transcriptions",
    tag: TAG,
    summary: "List indexed transcripts",
    access: "project",
    permission: "ai:search",
    data: z.array(z.looseObject({ textSourceId: z.string(), chunkCount: z.number().int(), lastIndexedAt: z.string(), ...StalenessFields })),
    metadataDescription: "`collection` and `count`.",
  },
  {
    method: "delete",
    path: "/v1/catalog/transcriptions/:textSourceId",
    tag: TAG,
    summary: "Remove a transcript from the catalog",
    access: "project",
    permission: "catalog:delete",
    params: { textSourceId: "The transcript's id (`txt_…`)." },
    data: z.object({ textSourceId: z.string(), removed: z.literal(true), removedChunks: z.number().int() }),
    errors: ["notFound"],
  },
]);
