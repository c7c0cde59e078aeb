import { z } from "zod";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/dubbing/routes.ts: dubbing records. */

const TAG = "Translation and dubbing";

export const dubbingOperations = operations([
  {
    method: "get",
    path: "/v1/dubbings/:dubbingId",
    tag: TAG,
    summary: "Get a dubbing",
    description:
      "The record with its artifacts, speakers and per-segment timing once completed; `transcriptRevision` is the revision its translation was made from, `stale` whether the transcript changed since.",
    access: "project",
    permission: "job:read",
    params: { dubbingId: "The dubbing's id (`dub_…`)." },
    data: z.looseObject({ dubbingId: z.string(), jobId: z.string(), status: z.string(), languageKey: z.string(), ...StalenessFields }),
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId/dubbings",
    tag: TAG,
    summary: "List a transcript's dubbings",
    access: "project",
    permission: "job:read",
    params: { transcriptionId: "The transcript's id (`txt_…`)." },
    data: z.array(z.looseObject({ dubbingId: z.string(), status: z.string(), languageKey: z.string(), ...StalenessFields })),
    errors: ["notFound"],
  },
]);
