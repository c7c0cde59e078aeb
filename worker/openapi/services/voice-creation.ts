import { z } from "zod";
import { DeleteQuery } from "../../routes/deletion";
import { JobSchema } from "../../../contracts/job";
import { SERVICE_CONTRACTS } from "../../../contracts/services/index";
import { ListQuery } from "../../services/voice-creation/routes";
import { operations } from "../operation";

/** worker/services/voice-creation/routes.ts: the project's voices. */

const TAG = "Voices";
const Voice = z.looseObject({ voiceId: z.string(), name: z.string(), status: z.string(), origin: z.enum(["api", "dubbing"]) });
const voiceParam = { voiceId: "The voice's id (`vce_…`)." };

export const voiceCreationOperations = operations([
  {
    method: "post",
    path: "/v1/voices",
    tag: TAG,
    summary: "Create a voice",
    description: "Starts a `voice_creation` job from a sample in the bucket; the body is that job's `input`.",
    access: "project",
    permission: "voice:write",
    body: SERVICE_CONTRACTS.voice_creation.input,
    status: 202,
    data: Voice.extend({ job: JobSchema }),
    errors: ["notFound", "serviceNotAvailable", "quotaExceeded"],
  },
  {
    method: "get",
    path: "/v1/voices",
    tag: TAG,
    summary: "List voices",
    description: "Newest first.",
    access: "project",
    permission: "voice:read",
    query: ListQuery,
    queryNotes: {
      limit: "Voices per page, 1-100 (default 50).",
      before: "Only voices created before this timestamp (the last `createdAt` of the previous page).",
      origin: "`api` (created with POST /v1/voices) or `dubbing` (made for a dubbing's speakers).",
    },
    data: z.array(Voice),
  },
  {
    method: "get",
    path: "/v1/voices/:voiceId",
    tag: TAG,
    summary: "Get a voice",
    access: "project",
    permission: "voice:read",
    params: voiceParam,
    data: Voice,
    errors: ["notFound"],
  },
  {
    method: "delete",
    path: "/v1/voices/:voiceId",
    tag: TAG,
    summary: "Delete a voice",
    description:
      "Gone at once; dubbings that used it keep their record and audio. Recorded in the audit log. `?deleteOutputs=true` also deletes its reference clip from the bucket its sample was read from.",
    access: "project",
    permission: "voice:write",
    params: voiceParam,
    query: DeleteQuery,
    data: z.looseObject({ voiceId: z.string(), deleted: z.literal(true), auditEventId: z.string() }),
    errors: ["notFound"],
  },
]);
