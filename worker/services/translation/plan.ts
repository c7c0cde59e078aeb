import { eq } from "drizzle-orm";
import type { Job } from "../../../contracts/job";
import { newId } from "../../../contracts/ids";
import type { SOURCE_LAYERS } from "../../../contracts/request-fields";
import { TranslationPlanSchema, type TranslationPlan } from "../../../contracts/services/translation";
import { baseLanguage, languageKey, resolvePair } from "../../../contracts/translation-languages";
import { translations } from "../../db/schema";
import { ApiError, validationError } from "../../errors";
import { requireUsableConnection } from "../../storage/connections";
import type { TranscriptRow } from "../../transcripts/lookup";
import { probeOutputKeys } from "../shared/output-probes";
import { resolvePresigned } from "../shared/presigned-input";
import type { CreateContext, CreateWrite } from "../types";

/**
 * A translation planned at create, by a translation job or by a dubbing job that translates first:
 * the pair (source inferred from the transcript when omitted) against the plan's targets and the
 * configured engine, the subtitle keys next to the transcript's own, the `trl_` record. Everything
 * that can refuse runs before the charge. What it plans is the contract's `TranslationPlanSchema`,
 * the fields the runner's step reads too.
 */

/** A translation job keeps the fields at the top of its input; a dubbing job under `input.translation`. */
export function translationFieldsOf(job: Job): TranslationPlan {
  const raw = job.input["translation"] ?? job.input;
  const parsed = TranslationPlanSchema.safeParse(raw);
  if (!parsed.success) throw new ApiError("protocolError", `job ${job.jobId} plans no translation`);
  return parsed.data;
}

export interface TranslationRequest {
  sourceLanguage?: string | undefined;
  targetLanguage: string;
  sourceLayer?: (typeof SOURCE_LAYERS)[number] | undefined;
  /** `s3_presigned`: a PUT URL per subtitle file instead of keys next to the transcript's own. */
  outputUrls?: { srt: string; vtt: string } | undefined;
}

export interface PlannedTranslation {
  fields: TranslationPlan;
  probe(): Promise<void>;
  statements(jobId: string, now: string): Promise<CreateWrite[]>;
  remove(): Promise<void>;
}

/** The folder of the transcript's own subtitles, through its (active) connection. */
async function bucketLocation(ctx: CreateContext, t: TranscriptRow, transcriptPath: string) {
  if (!t.connectionId || !t.bucket || !t.outputKeys)
    throw validationError(
      `transcription ${t.id} has no output location to write subtitles next to; send sourceType s3_presigned with outputUrls { srt, vtt }`,
      [{ path: transcriptPath, issue: "noOutputLocation" }],
    );
  const conn = await requireUsableConnection(ctx.db, ctx.projectId, t.connectionId, t.bucket, "transcript");
  return { conn, dir: t.outputKeys["srt"]?.replace(/[^/]*$/, "") ?? "" };
}

/**
 * `at`: where the request's language fields are (`input`); `transcriptPath`: the field naming the
 * transcript; `sealedOutputs`: the subtitles' URLs, redacted, when the caller checks, probes and
 * seals them with its own (a presigned dubbing job: one sealed grant per job).
 */
export async function planTranslation(
  ctx: CreateContext,
  t: TranscriptRow,
  req: TranslationRequest,
  at: string,
  transcriptPath: string,
  sealedOutputs?: { srt: string; vtt: string },
): Promise<PlannedTranslation> {
  const { db, projectId, plan, settings } = ctx;
  const cfg = settings.policy.translation;
  const source = languageKey(req.sourceLanguage ?? t.language ?? "en");
  const target = languageKey(req.targetLanguage);
  if (source === target)
    throw validationError(`targetLanguage ${target} is the transcript's own language`, [
      { path: `${at}.targetLanguage`, issue: "sameLanguage" },
    ]);
  // Plans other than enterprise read the free entry, as for clips and thumbnails.
  const planTargets = (plan === "enterprise" ? cfg.enterprise : cfg.free).targetLanguages;
  if (planTargets && !planTargets.map(languageKey).some((k) => k === target || k === baseLanguage(target)))
    throw validationError(`targetLanguage ${target} is not available on the ${plan} plan (${planTargets.join(", ")})`, [
      { path: `${at}.targetLanguage`, issue: "targetNotInPlan" },
    ]);
  const pair = resolvePair(cfg.backend, source, target, cfg.languages);
  if (!pair)
    throw validationError(
      `translation from ${source} into ${target} is not supported by the ${cfg.backend} engine; GET /v1/jobs/policy?serviceType=translation lists the supported pairs`,
      [{ path: req.sourceLanguage ? `${at}.sourceLanguage` : `${at}.targetLanguage`, issue: "unsupportedLanguagePair" }],
    );
  const presigned = req.outputUrls ? resolvePresigned(ctx, { outputUrls: req.outputUrls }) : null;
  const location = presigned || sealedOutputs ? null : await bucketLocation(ctx, t, transcriptPath);
  const fields: TranslationPlan = {
    textSourceId: t.id,
    translationId: newId("translation"),
    sourceLanguage: source,
    sourceLanguageInferred: req.sourceLanguage === undefined,
    targetLanguage: target,
    languageKey: target,
    sourceLayer: req.sourceLayer ?? "current",
    connectionId: location?.conn.id ?? null,
    bucket: location ? t.bucket : null,
    resolvedOutputKeys: sealedOutputs
      ? sealedOutputs
      : presigned
        ? (presigned.redacted.outputUrls as { srt: string; vtt: string })
        : { srt: `${location?.dir}transcript.${target}.srt`, vtt: `${location?.dir}transcript.${target}.vtt` },
    engine: { backend: cfg.backend, model: cfg.model, pair: pair.model },
  };
  return {
    fields,
    probe: sealedOutputs
      ? async () => undefined
      : presigned
        ? presigned.probe
        : () => probeOutputKeys(ctx.env, location!.conn, t.bucket!, Object.values(fields.resolvedOutputKeys), transcriptPath),
    statements: async (jobId, now) => [
      ...((await presigned?.record.statements(jobId, now)) ?? []),
      db.insert(translations).values({
        id: fields.translationId,
        projectId,
        jobId,
        textSourceId: t.id,
        status: "pending",
        sourceLanguage: source,
        targetLanguage: target,
        languageKey: target,
        sourceLayer: fields.sourceLayer,
        translationBackend: cfg.backend,
        model: cfg.backend === "apertium" ? `apertium:${pair.model}` : (cfg.model ?? cfg.backend),
        outputKeys: fields.resolvedOutputKeys,
        createdAt: now,
        updatedAt: now,
      }),
    ],
    remove: async () => {
      await db.delete(translations).where(eq(translations.id, fields.translationId));
      await presigned?.record.remove();
    },
  };
}
