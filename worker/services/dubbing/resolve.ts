import { and, eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import { flattenOutputUrls, redactUrl } from "../../../contracts/presigned";
import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { speaksLanguage } from "../../../contracts/synthesis-languages";
import { baseLanguage, languageKey } from "../../../contracts/translation-languages";
import type { Db } from "../../db/client";
import { dubbings, translations } from "../../db/schema";
import { notFound, validationError } from "../../errors";
import { displayNameOf } from "../../storage/object-keys";
import { requireSegmentedTranscript, type TranscriptRow } from "../../transcripts/lookup";
import { resolvePresigned } from "../shared/presigned-input";
import { resolveVideoSource } from "../shared/video-source";
import { resolvePreviousDubbing } from "./regenerate";
import { chooseSpeechModel } from "./speech-model";
import { planTranslation, type PlannedTranslation } from "../translation/plan";
import { projectVoice } from "../voice-creation/store";
import { consentsForJob } from "../voice-consent/store";
import type { CreateContext, Resolved } from "../types";

/**
 * A dubbing's create: the transcript (completed, with segments); the translation (a given `trl_`
 * must be this transcript's current translation into the target, completed; without one the job
 * translates first, planned exactly as a translation job); the target language against the speech
 * engine; the speech model, only one the operator offers (speech-model.ts); every assigned voice (ready, this project's, speaking the target language, stored on the
 * job so the runner needs no lookup); the dub it regenerates, if any (regenerate.ts); the source
 * video and the artifacts' prefix (probed). One credit.
 */

async function existingTranslation(db: Db, projectId: string, t: TranscriptRow, id: string, target: string) {
  const path = "input.translationId";
  const row = await db
    .select()
    .from(translations)
    .where(and(eq(translations.id, id), eq(translations.projectId, projectId)))
    .get();
  if (!row) throw notFound(`translation not found: ${id}`, [{ path, issue: `notFound:${id}` }]);
  if (row.textSourceId !== t.id)
    throw validationError(`translation ${id} is of transcription ${row.textSourceId}, not ${t.id}`, [
      { path, issue: "translationOfOtherTranscript" },
    ]);
  if (row.status !== "completed") throw validationError(`translation ${id} is not completed`, [{ path, issue: "translationNotCompleted" }]);
  if (row.languageKey !== target)
    throw validationError(`translation ${id} is into ${row.languageKey}, not ${target}`, [{ path, issue: "translationLanguageMismatch" }]);
  const current = (t.translation as Record<string, { translationId?: string }>)[row.languageKey]?.translationId;
  if (current !== row.id)
    throw validationError(`translation ${id} was replaced by ${current ?? "a later one"}; dub with that one, or omit translationId`, [
      { path, issue: "translationSuperseded" },
    ]);
  return row;
}

export async function resolveDubbing(ctx: CreateContext, input: InputOf<"dubbing">): Promise<Resolved<StoredInputOf<"dubbing">>> {
  const { db, env, projectId, settings } = ctx;
  const t = await requireSegmentedTranscript(db, projectId, input.transcriptionId, "input.transcriptionId");
  const target = languageKey(input.targetLanguage);
  const cfg = settings.dubbing;
  const o = input.options ?? {};
  const ttsEnabled = o.tts?.enabled ?? true;
  if (ttsEnabled && !speaksLanguage(cfg.speechEngine, target))
    throw validationError(`the ${cfg.speechEngine} speech engine cannot speak ${target}`, [
      { path: "input.targetLanguage", issue: "unsupportedSpeechLanguage" },
    ]);
  const speechModel = chooseSpeechModel(settings, o.tts?.modelId);
  const previous = o.regenerateFrom
    ? await resolvePreviousDubbing(env, db, projectId, o.regenerateFrom, {
        transcriptionId: t.id,
        languageKey: target,
        bucketJob: input.sourceType !== "s3_presigned",
      })
    : null;

  // s3_presigned: every URL (the artifacts' and, when the job translates, the subtitles') checked and sealed as one grant.
  const presigned = input.sourceType === "s3_presigned" ? presignedDubbing(ctx, input) : null;
  let planned: PlannedTranslation | null = null;
  let translation: { translationId: string; sourceLanguage: string };
  if (input.translationId) {
    const row = await existingTranslation(db, projectId, t, input.translationId, target);
    translation = { translationId: row.id, sourceLanguage: row.sourceLanguage };
  } else {
    const { outputUrls: _urls, ...request } = input.sourceType === "s3_presigned" ? input : { ...input, outputUrls: undefined };
    const subtitles = presigned?.subtitles;
    planned = await planTranslation(ctx, t, request, "input", "input.transcriptionId", subtitles);
    translation = { translationId: planned.fields.translationId, sourceLanguage: planned.fields.sourceLanguage };
  }

  const assigned: Record<string, { voiceId: string; spec: unknown; referenceKey: string | null }> = {};
  for (const [label, voiceId] of Object.entries(o.voiceAssignments ?? {})) {
    const path = `input.options.voiceAssignments.${label}`;
    const v = await projectVoice(db, projectId, voiceId);
    if (!v) throw notFound(`voice not found: ${voiceId}`, [{ path, issue: `notFound:${voiceId}` }]);
    if (v.status !== "ready" || !v.spec)
      throw validationError(`voice ${voiceId} is ${v.status}, not ready`, [{ path, issue: "voiceNotReady" }]);
    if (baseLanguage(v.language) !== baseLanguage(target))
      throw validationError(`voice ${voiceId} speaks ${v.language}, not ${target}`, [{ path, issue: "voiceLanguageMismatch" }]);
    assigned[label] = { voiceId, spec: v.spec, referenceKey: v.referenceKey };
  }

  // A transcript not diarized is diarized by the dub itself, whose labels may be any of the 32 a dub can find.
  const labels =
    t.speakers.length > 0 ? t.speakers.map((s) => s.label) : Array.from({ length: 32 }, (_, i) => `SPEAKER_${String(i).padStart(2, "0")}`);
  const voiceConsent = await consentsForJob(
    db,
    projectId,
    Object.fromEntries(labels.map((label) => [label, { transcriptionId: t.id, speakerLabel: label }])),
  );

  const dubbingId = newId("dubbing");
  const bucket = presigned ? null : await resolveVideoSource(db, env, projectId, {}, t, "dubbing", settings.runner);
  // An s3_presigned job writes to its URLs: no prefix (the record shows "").
  const prefix = bucket ? `${bucket.prefix}${dubbingId}/` : "";
  const location = bucket ? { sourceType: "s3_direct" as const, ...bucket.source, resolvedOutputPrefix: prefix } : presigned?.stored;
  // Narrows the types only: a dubbing is either a bucket job or an s3_presigned one.
  if (!location) throw new Error("unreachable");
  const options = {
    diarization: {
      enabled: o.diarization?.enabled ?? true,
      minSpeakers: o.diarization?.minSpeakers ?? null,
      maxSpeakers: o.diarization?.maxSpeakers ?? null,
    },
    voiceAssignments: o.voiceAssignments ?? {},
    voiceCloning: { enabled: o.voiceCloning?.enabled ?? true },
    tts: { enabled: ttsEnabled, modelId: o.tts?.modelId ?? null },
    ...(o.regenerateFrom ? { regenerateFrom: o.regenerateFrom } : {}),
  };

  return {
    input: {
      ...input,
      dubbingId,
      translationId: translation.translationId,
      sourceLanguage: translation.sourceLanguage,
      targetLanguage: target,
      languageKey: target,
      sourceLayer: input.sourceLayer ?? "current",
      options,
      // Set when this job translates first (translation.source / translation.save read it).
      ...(planned ? { translation: planned.fields } : {}),
      assignedVoices: assigned,
      ...(previous ? { regenerateFrom: previous } : {}),
      voiceConsent,
      ...location,
      // The engines as configured at create: a settings change does not alter a queued job.
      engines: {
        speech: cfg.speechEngine,
        speechModel,
        diarization: cfg.diarizationEngine,
        diarizationModel: cfg.diarizationModel,
        separation: cfg.separationEngine,
        separationModel: cfg.separationModel,
        mixLoudnessLufs: cfg.mixLoudnessLufs,
        duckDb: cfg.duckDb,
        redactedAudio: cfg.redactedAudio,
      },
    },
    sourceDisplayName: displayNameOf(bucket ? bucket.source.sourceKey : (presigned?.grant.sourcePath ?? "")),
    credits: 1,
    probe: async () => {
      await (presigned?.grant ?? bucket)?.probe();
      await planned?.probe();
    },
    record: {
      statements: async (jobId, now) => [
        ...((await presigned?.grant.record.statements(jobId, now)) ?? []),
        ...((await planned?.statements(jobId, now)) ?? []),
        db.insert(dubbings).values({
          id: dubbingId,
          projectId,
          jobId,
          transcriptionId: t.id,
          translationId: translation.translationId,
          status: "pending",
          sourceLanguage: translation.sourceLanguage,
          targetLanguage: target,
          languageKey: target,
          options,
          outputPrefix: prefix,
          result: null,
          createdAt: now,
          updatedAt: now,
        }),
      ],
      remove: async () => {
        await db.delete(dubbings).where(eq(dubbings.id, dubbingId));
        await planned?.remove();
        await presigned?.grant.record.remove();
      },
    },
  };
}

/**
 * A presigned dubbing's URLs: the subtitles' `srt` and `vtt` exactly when the job translates (no
 * `translationId`), then the shared checks (shared/presigned-input.ts) over all of them at once.
 */
function presignedDubbing(ctx: CreateContext, input: Extract<InputOf<"dubbing">, { sourceType: "s3_presigned" }>) {
  for (const name of ["srt", "vtt"] as const) {
    const path = `input.outputUrls.${name}`;
    if (input.translationId && input.outputUrls[name])
      throw validationError(`outputUrls.${name} is not used: the job dubs the given translation and writes no subtitles`, [
        { path, issue: "notAllowed" },
      ]);
    if (!input.translationId && !input.outputUrls[name])
      throw validationError(`outputUrls.${name} is required: the job translates first and writes the translation's subtitles`, [
        { path, issue: "required" },
      ]);
  }
  const outputUrls = Object.fromEntries(Object.entries(input.outputUrls).filter((e): e is [string, string] => e[1] !== undefined));
  const grant = resolvePresigned(ctx, { sourceUrl: input.sourceUrl, outputUrls });
  // Every URL of a dubbing is a single one: flattening only types the redacted map as the job stores it.
  const redacted = flattenOutputUrls(grant.redacted.outputUrls);
  const { srt, vtt } = redacted;
  return {
    grant,
    stored: { sourceType: "s3_presigned" as const, sourceUrl: redactUrl(input.sourceUrl), outputUrls: redacted },
    // The whole map, as the translation's resolvedOutputKeys have always shown it for a presigned dubbing.
    subtitles: srt !== undefined && vtt !== undefined ? { ...redacted, srt, vtt } : undefined,
  };
}
