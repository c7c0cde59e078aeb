import { DubbingResultSchema, DubbingSaveSchema } from "../../../contracts/services/dubbing";
import { TranslationSaveSchema } from "../../../contracts/services/translation";
import { ApiError } from "../../errors";
import { reportedKeysRefusal } from "../../storage/object-keys";
import { validatedCall } from "../shared/runner-call";
import { validatedSink } from "../shared/step-result";
import { failPendingTranslation, saveTranslation, translationSource } from "../translation/store";
import { requireJobsOwn } from "../shared/result-checks";
import { defineWorkerService, type ResultCheck } from "../types";
import { previousDubbingRecord } from "./regenerate";
import { resolveDubbing } from "./resolve";
import { dubbingRecordRoutes, transcriptDubbingRoutes } from "./routes";
import {
  createSpeakerVoice,
  failPendingDubbing,
  givenTranslation,
  saveDubbing,
  storedDubbing,
  transcriptSpeakers,
  VoiceCreateCallSchema,
} from "./store";
import { blobStore } from "../../storage/blobs";

/**
 * Dubbing, the Worker's side: create checks and records (resolve.ts), the runner calls of its one
 * step (the translation's own calls when it translates first, the given translation, speaker
 * voices, the record), the spec's resultSummary and the record routes.
 */
/** The resultSummary names the job's own dubbing, transcript, translation and languages. */
const checkDubbing: ResultCheck = ({ job }, raw) => {
  const parsed = DubbingResultSchema.safeParse(raw);
  if (!parsed.success) return;
  const stored = storedDubbing(job);
  for (const field of ["dubbingId", "transcriptionId", "translationId", "sourceLanguage", "targetLanguage", "languageKey"] as const)
    requireJobsOwn(parsed.data[field], stored[field], `result.${field}`);
};

export const dubbingWorker = defineWorkerService<"dubbing">({
  meter: "dubbing_jobs",
  runtimeMeters: ["dubbing_voices"],
  resolve: resolveDubbing,
  sinks: {
    dubbing: validatedSink(DubbingResultSchema, "dubbing", async (_ctx, r) => ({ ok: true, summary: r })),
  },
  resultChecks: { dubbing: checkDubbing },
  runnerCalls: {
    "translation.source": async ({ env, db, job }) => translationSource(db, blobStore(env.BLOBS), job),
    "translation.save": validatedCall(TranslationSaveSchema, async ({ env, db, job }, body) =>
      saveTranslation(db, blobStore(env.BLOBS), job, body),
    ),
    "dubbing.translation": async ({ env, db, job }) => givenTranslation(db, blobStore(env.BLOBS), job),
    "dubbing.previous": async ({ env, db, job }) => previousDubbingRecord(env, db, job, storedDubbing(job).regenerateFrom?.dubbingId),
    "dubbing.speakers": async ({ env, db, job }) => transcriptSpeakers(db, blobStore(env.BLOBS), job),
    "voices.create": validatedCall(VoiceCreateCallSchema, async ({ env, db, job }, body) => createSpeakerVoice(env, db, job, body)),
    "dubbing.save": validatedCall(DubbingSaveSchema, async ({ env, db, job }, body) => {
      const refused = reportedKeysRefusal(
        "dubbing.save",
        Object.entries(body.artifacts).map(([name, key]) => [`artifacts.${name}`, key] as const),
      );
      if (refused) throw new ApiError("protocolError", refused.message);
      return saveDubbing(env, db, job, body);
    }),
  },
  onEnded: async ({ db }, job) => {
    if (job.status === "completed") return;
    await failPendingDubbing(db, job);
    await failPendingTranslation(db, job);
  },
  runnerSettings: (s) => ({ runner: s.runner }),
  routes: { "/dubbings": dubbingRecordRoutes, "/transcriptions": transcriptDubbingRoutes },
});
