import { z } from "zod";
import { JobSchema } from "../../../contracts/job";
import { CONSENT_KINDS, CONSENT_STATUSES, ConsentRequestSchema, PhraseRequestSchema } from "../../../contracts/voice-consent";
import { ConsentListQuery } from "../../services/voice-consent/routes";
import { operations } from "../operation";

/** worker/services/voice-consent/routes.ts and worker/routes/voice-consents.ts: consents to clone a voice. */

const TAG = "Voice consents";
const Consent = z.looseObject({
  consentId: z.string(),
  kind: z.enum(CONSENT_KINDS),
  status: z.enum(CONSENT_STATUSES),
  subject: z.record(z.string(), z.unknown()),
  createdBy: z.object({ kind: z.string(), id: z.string(), label: z.string() }),
  reason: z.string().nullable(),
});
const consentParam = { consentId: "The consent's id (`vcn_…`)." };

export const voiceConsentOperations = operations([
  {
    method: "post",
    path: "/v1/voice-consents",
    tag: TAG,
    summary: "Record a consent",
    description:
      "`attestation`: stored `granted` at once (201), with who made it and when. `recording`: a `voice_consent` job checks the recording of the issued phrase (202; the consent stays `pending` until it decides).",
    access: "project",
    permission: "voice_consent:write",
    body: ConsentRequestSchema,
    status: 202,
    alsoStatus: 201,
    data: Consent.extend({ job: JobSchema.optional() }),
    errors: ["notFound", "serviceNotAvailable"],
  },
  {
    method: "post",
    path: "/v1/voice-consents/phrases",
    tag: TAG,
    summary: "Issue a consent phrase",
    description: "Random words from a fixed list, after the speaker's name when given; single use, valid for 24 hours.",
    access: "project",
    permission: "voice_consent:write",
    body: PhraseRequestSchema,
    status: 201,
    data: z.object({ phraseId: z.string(), text: z.string(), words: z.array(z.string()), expiresAt: z.string() }).loose(),
  },
  {
    method: "get",
    path: "/v1/voice-consents",
    tag: TAG,
    summary: "List consents",
    description: "Newest first.",
    access: "project",
    permission: "voice_consent:read",
    query: ConsentListQuery,
    queryNotes: {
      limit: "Consents per page, 1-100 (default 50).",
      before: "Only consents created before this timestamp (the last `createdAt` of the previous page).",
      status: "`pending`, `granted`, `refused` or `revoked`.",
      transcriptionId: "Only consents for speakers of this transcript.",
    },
    data: z.array(Consent),
  },
  {
    method: "get",
    path: "/v1/voice-consents/:consentId",
    tag: TAG,
    summary: "Get a consent",
    access: "project",
    permission: "voice_consent:read",
    params: consentParam,
    data: Consent,
    errors: ["notFound"],
  },
  {
    method: "delete",
    path: "/v1/voice-consents/:consentId",
    tag: TAG,
    summary: "Revoke a consent",
    description:
      "The consent becomes `revoked`: dubbings and voices created afterwards make a voice profile, not a clone. Voices made before keep theirs.",
    access: "project",
    permission: "voice_consent:write",
    params: consentParam,
    data: Consent,
    errors: ["notFound"],
  },
]);
