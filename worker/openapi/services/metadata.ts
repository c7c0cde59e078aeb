import { z } from "zod";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/metadata/index.ts: a transcript's generated metadata. */
export const metadataOperations = operations([
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId/metadata",
    tag: "Understanding",
    summary: "Get a transcript's metadata",
    description: "Title, description, chapters and categories from the latest metadata job; 404 until one completed.",
    access: "project",
    permission: "transcript:read",
    params: { transcriptionId: "The transcript's id (`txt_…`)." },
    data: z.looseObject({ transcriptionId: z.string(), metadataId: z.string(), title: z.string(), ...StalenessFields }),
    errors: ["notFound"],
  },
]);
