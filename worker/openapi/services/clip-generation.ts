import { z } from "zod";
import { ClipSchema } from "../../../contracts/clips";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/clip-generation/index.ts: the clip generation record. */
export const clipGenerationOperations = operations([
  {
    method: "get",
    path: "/v1/clip-generations/:clipGenerationId",
    tag: "Clips",
    summary: "Get a clip generation",
    description: "Its options, the layout and category chosen, and the rendered clips with their posters.",
    access: "project",
    permission: "job:read",
    params: { clipGenerationId: "The clip generation's id." },
    data: z.looseObject({
      clipGenerationId: z.string(),
      jobId: z.string(),
      status: z.string(),
      clips: z.array(ClipSchema).optional(),
      ...StalenessFields,
    }),
    errors: ["notFound"],
  },
]);
