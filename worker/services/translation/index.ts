import { TranslationResultSchema, TranslationSaveSchema } from "../../../contracts/services/translation";
import { supportedPairs, type LanguagePair } from "../../../contracts/translation-languages";
import type { Settings } from "../../../contracts/settings";
import { validatedCall } from "../shared/runner-call";
import { validatedSink } from "../shared/step-result";
import { requireJobsOwn } from "../shared/result-checks";
import { defineWorkerService, type ResultCheck } from "../types";
import { translationFieldsOf } from "./plan";
import { resolveTranslation } from "./resolve";
import { transcriptTranslationRoutes, translationRecordRoutes } from "./routes";
import { failPendingTranslation, saveTranslation, translationSource } from "./store";
import { blobStore } from "../../storage/blobs";

/**
 * Translation, the Worker's side: create checks and the record (resolve.ts), the runner calls that
 * read the source layer and save the result (store.ts), the spec's resultSummary, the policy's
 * supported pairs per plan, and the record routes (routes.ts).
 */

/** Pairs grouped by source language: `[{ source: "en", targets: ["ca", "es", …] }]`. */
function pairsFor(s: Settings, plan: "free" | "enterprise"): Array<{ source: string; targets: string[] }> {
  const cfg = s.policy.translation;
  const allowed = cfg[plan].targetLanguages;
  const keep = (p: LanguagePair) => !allowed || allowed.some((t) => t === p.target || t === p.target.split("-")[0]);
  const bySource = new Map<string, string[]>();
  for (const p of supportedPairs(cfg.backend, cfg.languages).filter(keep))
    bySource.set(p.source, [...(bySource.get(p.source) ?? []), p.target]);
  return [...bySource].map(([source, targets]) => ({ source, targets: targets.sort() })).sort((a, b) => a.source.localeCompare(b.source));
}

/** The resultSummary names the job's own translation, transcript, languages and layer. */
const checkTranslation: ResultCheck = ({ job }, raw) => {
  const parsed = TranslationResultSchema.safeParse(raw);
  if (!parsed.success) return;
  const own = translationFieldsOf(job);
  for (const field of ["translationId", "textSourceId", "sourceLanguage", "targetLanguage", "languageKey", "sourceLayer"] as const)
    requireJobsOwn(parsed.data[field], own[field], `result.${field}`);
};

export const translationWorker = defineWorkerService<"translation">({
  meter: "translation_jobs",
  resolve: resolveTranslation,
  policy: (s) => ({
    translationBackend: s.policy.translation.backend,
    model: s.policy.translation.model,
    plans: {
      free: { targetLanguages: s.policy.translation.free.targetLanguages, pairs: pairsFor(s, "free") },
      enterprise: { targetLanguages: s.policy.translation.enterprise.targetLanguages, pairs: pairsFor(s, "enterprise") },
    },
  }),
  sinks: {
    translation: validatedSink(TranslationResultSchema, "translation", async (_ctx, r) => ({ ok: true, summary: r })),
  },
  resultChecks: { translation: checkTranslation },
  runnerCalls: {
    "translation.source": async ({ env, db, job }) => translationSource(db, blobStore(env.BLOBS), job),
    "translation.save": validatedCall(TranslationSaveSchema, async ({ env, db, job }, body) =>
      saveTranslation(db, blobStore(env.BLOBS), job, body),
    ),
  },
  onEnded: async ({ db }, job) => {
    if (job.status !== "completed") await failPendingTranslation(db, job);
  },
  runnerSettings: (s) => ({ runner: s.runner }),
  routes: { "/translations": translationRecordRoutes, "/transcriptions": transcriptTranslationRoutes },
});
