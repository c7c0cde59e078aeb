import { z } from "zod";
import { TranslatedSegmentSchema } from "../../../contracts/services/translation";
import { operations } from "../operation";
import { StalenessFields } from "../../../contracts/regenerate";

/** worker/services/translation/routes.ts: translation records and per-language arrays. */

const TAG = "Translation and dubbing";
const Translation = z.looseObject({
  translationId: z.string(),
  textSourceId: z.string(),
  status: z.string(),
  current: z.boolean(),
  languageKey: z.string(),
  segments: z.array(TranslatedSegmentSchema).nullable(),
  ...StalenessFields,
});
const txtParam = { transcriptionId: "The transcript's id (`txt_…`)." };

export const translationOperations = operations([
  {
    method: "get",
    path: "/v1/translations/:translationId",
    tag: TAG,
    summary: "Get a translation",
    description: "The record; `segments` while it is its language's current translation, else null.",
    access: "project",
    permission: "transcript:read",
    params: { translationId: "The translation's id (`trl_…`)." },
    data: Translation,
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId/translations",
    tag: TAG,
    summary: "List a transcript's translations",
    access: "project",
    permission: "transcript:read",
    params: txtParam,
    data: z.object({ transcriptionId: z.string(), translations: z.array(z.looseObject({ languageKey: z.string(), ...StalenessFields })) }),
    errors: ["notFound"],
  },
  {
    method: "get",
    path: "/v1/transcriptions/:transcriptionId/translations/:languageKey",
    tag: TAG,
    summary: "Get a transcript's current translation into a language",
    access: "project",
    permission: "transcript:read",
    params: { ...txtParam, languageKey: "The target language, e.g. `de` or `pt-BR`." },
    data: Translation,
    errors: ["notFound"],
  },
]);
