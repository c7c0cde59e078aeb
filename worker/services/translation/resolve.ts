import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import type { InputOf } from "../../../contracts/services/index";
import { baseLanguage, languageKey, resolvePair } from "../../../contracts/translation-languages";
import { translations } from "../../db/schema";
import { validationError } from "../../errors";
import { requireSegmentedTranscript, requireUsableConnection } from "../../jobs/references";
import { probeOutputKeys } from "../shared/output-probes";
import type { CreateContext, Resolved } from "../types";

/**
 * A translation's create: the transcript (completed, with segments), the pair (the source language
 * inferred from the transcript when omitted) against the plan's targets and the configured engine,
 * and the two subtitle files next to the transcript's own, probed with empty PUTs. Everything that
 * can refuse runs before the charge, so a refused request costs nothing.
 */
export async function resolveTranslation(ctx: CreateContext, input: InputOf<"translation">): Promise<Resolved> {
  const { db, projectId, plan, settings } = ctx;
  const t = await requireSegmentedTranscript(db, projectId, input.textSourceId, "input.textSourceId");
  const cfg = settings.policy.translation;
  const source = languageKey(input.sourceLanguage ?? t.language ?? "en");
  const target = languageKey(input.targetLanguage);
  const sourcePath = input.sourceLanguage ? "input.sourceLanguage" : "input.targetLanguage";
  if (source === target)
    throw validationError(`targetLanguage ${target} is the transcript's own language`, [
      { path: "input.targetLanguage", issue: "sameLanguage" },
    ]);
  // Plans other than enterprise read the free entry, as for clips and thumbnails.
  const planTargets = (plan === "enterprise" ? cfg.enterprise : cfg.free).targetLanguages;
  if (planTargets && !planTargets.map(languageKey).some((k) => k === target || k === baseLanguage(target)))
    throw validationError(`targetLanguage ${target} is not available on the ${plan} plan (${planTargets.join(", ")})`, [
      { path: "input.targetLanguage", issue: "targetNotInPlan" },
    ]);
  const pair = resolvePair(cfg.backend, source, target, cfg.languages);
  if (!pair)
    throw validationError(
      `translation from ${source} into ${target} is not supported by the ${cfg.backend} engine; GET /v1/jobs/policy?serviceType=translation lists the supported pairs`,
      [{ path: sourcePath, issue: "unsupportedLanguagePair" }],
    );

  if (!t.connectionId || !t.bucket || !t.outputKeys)
    throw validationError(`transcription ${t.id} has no output location to write subtitles next to`, [
      { path: "input.textSourceId", issue: "noOutputLocation" },
    ]);
  const conn = await requireUsableConnection(db, projectId, t.connectionId, t.bucket, "transcript");
  const dir = t.outputKeys["srt"]?.replace(/[^/]*$/, "") ?? "";
  const key = languageKey(target);
  const outputKeys = { srt: `${dir}transcript.${key}.srt`, vtt: `${dir}transcript.${key}.vtt` };
  const translationId = newId("translation");
  const sourceLayer = input.sourceLayer ?? "current";

  return {
    input: {
      ...input,
      sourceLanguage: source,
      sourceLanguageInferred: input.sourceLanguage === undefined,
      targetLanguage: target,
      languageKey: key,
      sourceLayer,
      translationId,
      connectionId: conn.id,
      bucket: t.bucket,
      resolvedOutputKeys: outputKeys,
      // The engine as configured at create: a settings change does not alter a queued job.
      engine: { backend: cfg.backend, model: cfg.model, pair: pair.model },
    },
    credits: 1,
    probe: () => probeOutputKeys(ctx.env, conn, t.bucket!, Object.values(outputKeys), "input.textSourceId"),
    record: {
      insert: async (jobId, now) => {
        await db.insert(translations).values({
          id: translationId,
          projectId,
          jobId,
          textSourceId: t.id,
          status: "pending",
          sourceLanguage: source,
          targetLanguage: target,
          languageKey: key,
          sourceLayer,
          translationBackend: cfg.backend,
          model: cfg.backend === "apertium" ? `apertium:${pair.model}` : (cfg.model ?? cfg.backend),
          outputKeys,
          createdAt: now,
          updatedAt: now,
        });
      },
      remove: async () => {
        await db.delete(translations).where(eq(translations.id, translationId));
      },
    },
  };
}
