import { z } from "zod";
import { ThumbnailSchema } from "../../../contracts/thumbnails";
import { operations } from "../operation";

/** worker/services/thumbnail/index.ts: a transcript's thumbnails. */
export const thumbnailOperations = operations([
  {
    method: "get",
    path: "/v1/thumbnails/:transcriptionId",
    tag: "Thumbnails",
    summary: "Get a transcript's thumbnails",
    access: "project",
    permission: "transcript:read",
    params: { transcriptionId: "The transcript's id (`txt_…`)." },
    data: z.object({
      transcriptionId: z.string(),
      thumbnailCount: z.number().int(),
      frameCount: z.number().int(),
      thumbnails: z.array(ThumbnailSchema),
    }),
    errors: ["notFound"],
  },
]);
