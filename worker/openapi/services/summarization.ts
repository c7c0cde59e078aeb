import { z } from "zod";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/summarization/index.ts: the summarization record. */
export const summarizationOperations = operations([
  {
    method: "get",
    path: "/v1/summarizations/:summarizationId",
    tag: "Understanding",
    summary: "Get a summarization",
    description: "Synopses, SEO descriptions, social hooks, keywords and classification; null fields until the job completed.",
    access: "project",
    permission: "job:read",
    params: { summarizationId: "The summarization's id." },
    data: z.looseObject({
      summarizationId: z.string(),
      jobId: z.string(),
      status: z.string(),
      shortSynopsis: z.string().nullable(),
      ...StalenessFields,
    }),
    errors: ["notFound"],
  },
]);
