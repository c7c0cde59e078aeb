import { z } from "zod";
import { ClipGenerationResultSchema, ClipSchema } from "../../../contracts/clips";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/clip-generation/index.ts: the clip generation record. */
export const clipGenerationOperations = operations([
  {
    method: "get",
    path: "/v1/clip-generations/:clipGenerationId",
    tag: "Clips",
    summary: "Get a clip generation",
    description:
      "Its options, the layout and category chosen, and the rendered clips with their posters; `redactedAudio`: how a redacted transcript's words were replaced in the clips' audio (silence or tone) and over how many spans.",
    access: "project",
    permission: "job:read",
    params: { clipGenerationId: "The clip generation's id." },
    data: z.looseObject({
      clipGenerationId: z.string(),
      jobId: z.string(),
      status: z.string(),
      clips: z.array(ClipSchema).optional(),
      redactedAudio: ClipGenerationResultSchema.shape.redactedAudio.unwrap().nullable().optional(),
      ...StalenessFields,
    }),
    errors: ["notFound"],
  },
]);
