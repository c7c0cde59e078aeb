import { and, eq, getTableColumns, inArray } from "drizzle-orm";
import { z } from "zod";
import type { Job } from "../../../contracts/job";
import { newId } from "../../../contracts/ids";
import { DubbingStoredSchema, type DubbingSave, type DubbingStored, type TranscriptSpeakers } from "../../../contracts/services/dubbing";
import type { TranslatedSegment } from "../../../contracts/services/translation";
import { CreatedVoiceSchema } from "../../../contracts/voices";
import type { Db } from "../../db/client";
import { dubbings, transcripts, translations, voices, workspaces } from "../../db/schema";
import type { Env } from "../../env";
import { charge, refund, type Charge } from "../../accounts/credits";
import { loadSettings } from "../../platform/settings";
import { ApiError } from "../../errors";
import type { BlobStore } from "../../storage/blobs";
import { readLayerOf } from "../../transcripts/store";
import { redactedSpansOf } from "../../transcripts/redaction";
import { transcriptSpeakerTurns } from "../../transcripts/speaker-turns";
import { translationLayer } from "../translation/store";
import { readyFields } from "../voice-creation/store";
import { refused, requireOwnOutput } from "../shared/result-checks";
import { nowIso } from "../../../contracts/clock";
import { blobKey, blobStore } from "../../storage/blobs";
import { moveLegacyResult, readPointed, writeThenPoint } from "../shared/record-blob";

/** The dubbing record and the voices a dubbing makes for its speakers. */

/** The job's input as create stored it (the contract's stored schema); anything else is not a dubbing job's. */
export function storedDubbing(job: Job): DubbingStored {
  const parsed = DubbingStoredSchema.safeParse(job.input);
  if (!parsed.success) throw new ApiError("protocolError", `job ${job.jobId} has no dubbing input: ${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** `dubbing.translation`: the given translation's segments and what made it (a job that translates itself saves its own). */
export async function givenTranslation(
  db: Db,
  blobs: BlobStore,
  job: Job,
): Promise<{ translationId: string; translationBackend: string; model: string; segments: TranslatedSegment[] }> {
  const stored = storedDubbing(job);
  const id = stored.translationId;
  const row = await db.select().from(translations).where(eq(translations.id, id)).get();
  const segments = await readLayerOf<TranslatedSegment[]>(db, blobs, stored.transcriptionId, translationLayer(stored.languageKey));
  if (!row || !segments) throw new ApiError("notFound", `translation ${id} has no segments any more`);
  return { translationId: id, translationBackend: row.translationBackend, model: row.model, segments };
}

/** `dubbing.speakers` (contracts/services/dubbing.ts): the source transcript's speaker turns and names, and its redacted spans. */
export async function transcriptSpeakers(db: Db, blobs: BlobStore, job: Job): Promise<TranscriptSpeakers> {
  const stored = storedDubbing(job);
  const t = await db
    .select({
      id: transcripts.id,
      layers: transcripts.layers,
      speakers: transcripts.speakers,
      diarization: transcripts.diarization,
      redaction: transcripts.redaction,
    })
    .from(transcripts)
    .where(eq(transcripts.id, stored.transcriptionId))
    .get();
  const redactedSpans = redactedSpansOf(t?.redaction);
  if (!t || t.speakers.length === 0) return { turns: [], speakers: [], diarization: null, redactedSpans };
  const turns = await transcriptSpeakerTurns(db, blobs, t);
  return { turns, speakers: t.speakers.map(({ label, name }) => ({ label, name })), diarization: t.diarization, redactedSpans };
}

export const VoiceCreateCallSchema = z.object({ label: z.string().regex(/^SPEAKER_\d{2}$/), created: CreatedVoiceSchema });

/**
 * `voices.create`: a voice made from a speaker's own audio during the dubbing. One per (job, label):
 * a redelivered call returns the voice the first one made, charged once. Each new voice costs one
 * `dubbing_voices` credit of the workspace's plan (not the public `voice_creation` allowance, as the
 * spec says); over the limit the voice is not saved and the answer says why, so the runner leaves
 * that speaker for manual assignment instead of speaking it.
 */
export async function createSpeakerVoice(
  env: Env,
  db: Db,
  job: Job,
  body: z.infer<typeof VoiceCreateCallSchema>,
): Promise<{ voiceId: string | null; reason?: string }> {
  const stored = storedDubbing(job);
  // The Worker's decision at create holds whatever the runner reports: no consent, no clone.
  if (body.created.spec.kind === "clone" && stored.voiceConsent.required && !stored.voiceConsent.granted[body.label])
    throw refused(`body.created: ${body.label} has no granted consent, so its voice may not be a clone (voiceCloning.requireConsent)`, {
      path: "body.created.spec.kind",
      issue: "cloneWithoutConsent",
    });
  // A clone's reference clip lies under the dubbing's own prefix; a presigned job has no place for one.
  const ref = body.created.referenceKey;
  if (ref !== null) {
    if (stored.sourceType === "s3_presigned")
      throw refused("body.created.referenceKey: an s3_presigned dubbing keeps no reference clip", {
        path: "body.created.referenceKey",
        issue: "notJobOutput",
      });
    requireOwnOutput(job, ref, { prefix: `${stored.resolvedOutputPrefix}voices/`, outputName: "" }, "body.created.referenceKey");
  }
  const saved = () =>
    db
      .select({ id: voices.id })
      .from(voices)
      .where(and(eq(voices.jobId, job.jobId), eq(voices.speakerLabel, body.label)))
      .get();
  const earlier = await saved();
  if (earlier) return { voiceId: earlier.id };

  const settings = await loadSettings(db);
  const ws = await db.select({ plan: workspaces.plan }).from(workspaces).where(eq(workspaces.id, job.workspaceId)).get();
  let charged: Charge;
  try {
    charged = await charge(env.DB, settings, job.workspaceId, ws?.plan ?? "free", "dubbing_voices", 1);
  } catch (err) {
    if (err instanceof ApiError && err.code === "quotaExceeded") return { voiceId: null, reason: err.message };
    throw err;
  }
  const now = nowIso();
  const inserted = await db
    .insert(voices)
    .values({
      id: newId("voice"),
      projectId: job.projectId,
      name: `${body.label} of ${stored.dubbingId}`,
      origin: "dubbing",
      jobId: job.jobId,
      speakerLabel: body.label,
      language: stored.targetLanguage,
      sample: { transcriptionId: stored.transcriptionId, speakerLabel: body.label },
      createdAt: now,
      ...readyFields(body.created),
    })
    .onConflictDoNothing({ target: [voices.jobId, voices.speakerLabel] })
    .returning({ id: voices.id });
  // A redelivery racing this one saved the voice first, and paid for it.
  if (inserted.length === 0) await refund(env.DB, charged);
  const row = await saved();
  if (!row) throw new ApiError("protocolError", "the voice could not be saved");
  return { voiceId: row.id };
}

/**
 * `dubbing.save`: the whole record, its body (artifacts, speakers, per-segment timing, sync figures)
 * an object in R2 (kind `dubbing`) the `dub_` row points at; a redelivered save moves the pointer to
 * an identical object.
 */
export async function saveDubbing(env: Env, db: Db, job: Job, save: DubbingSave): Promise<{ dubbingId: string }> {
  const stored = storedDubbing(job);
  const { dubbingId } = stored;
  if (save.translationId !== stored.translationId)
    throw new ApiError("protocolError", "dubbing.save names a translation other than the job's");
  await requireOwnArtifacts(db, job, stored, save);
  // The dub speaks its translation: the revision that translation was made from is the one it holds.
  const spoken = await db
    .select({ revision: translations.transcriptRevision })
    .from(translations)
    .where(eq(translations.id, stored.translationId))
    .get();
  await writeThenPoint(blobStore(env.BLOBS), blobKey(job.projectId, DUBBING_BLOB_KIND, dubbingId, "result"), save, async (resultKey) => {
    const before = await db.select({ key: dubbings.resultKey }).from(dubbings).where(eq(dubbings.id, dubbingId)).get();
    const now = nowIso();
    const updated = await db
      .update(dubbings)
      .set({
        status: "completed",
        result: null,
        resultKey,
        transcriptRevision: spoken?.revision ?? null,
        updatedAt: now,
        completedAt: now,
      })
      .where(eq(dubbings.id, dubbingId))
      .returning({ id: dubbings.id });
    return { landed: updated.length > 0, previous: before?.key ?? null };
  });
  return { dubbingId };
}

/**
 * Dubbing rows with the revision each dub speaks: its own, or for a dub saved before that was noted,
 * its translation's (the text it speaks), read in the same statement.
 */
export function dubbingsWithRevision(db: Db) {
  return db
    .select({ ...getTableColumns(dubbings), translationRevision: translations.transcriptRevision })
    .from(dubbings)
    .leftJoin(translations, eq(translations.id, dubbings.translationId));
}

export const dubMadeFrom = (row: { transcriptRevision: number | null; translationRevision: number | null }) =>
  row.transcriptRevision ?? row.translationRevision;

export const DUBBING_BLOB_KIND = "dubbing";

type DubbingRow = typeof dubbings.$inferSelect;

/** The saved record's body: its object, or the D1 copy of a row the previous version wrote; null while pending. */
export async function dubbingResultOf(env: Env, row: DubbingRow): Promise<Record<string, unknown> | null> {
  return readPointed(blobStore(env.BLOBS), row.resultKey, row.result, `dubbing ${row.id}`);
}

/**
 * Moves a row the previous version wrote (its body in D1) into R2 and clears the D1 copy. Idempotent:
 * a row already moved, or not saved, is left as it is; answers whether this call moved it.
 */
export async function moveLegacyDubbing(env: Env, id: string): Promise<boolean> {
  return moveLegacyResult(env, "dubbings", DUBBING_BLOB_KIND, id);
}

/**
 * The record's files are the job's own (under its prefix, or its presigned URLs by name: the console
 * streams these keys), and every speaker's voice is one the request assigned, the regenerated dub
 * had, or this job made.
 */
async function requireOwnArtifacts(db: Db, job: Job, stored: DubbingStored, save: DubbingSave): Promise<void> {
  const prefix = stored.sourceType === "s3_presigned" ? "" : stored.resolvedOutputPrefix;
  for (const [name, key] of Object.entries(save.artifacts))
    requireOwnOutput(job, key, { prefix, outputName: name }, `body.artifacts.${name}`);
  // A regeneration speaks with the previous dub's voices too (create checked them: the project's, ready).
  const assigned = new Set(
    [...Object.values(stored.assignedVoices), ...Object.values(stored.regenerateFrom?.voices ?? {})].map((v) => v.voiceId),
  );
  const named = save.speakers.flatMap((s, i) => (s.voiceId !== null && !assigned.has(s.voiceId) ? [{ id: s.voiceId, i }] : []));
  if (named.length === 0) return;
  const made = await db
    .select({ id: voices.id })
    .from(voices)
    .where(
      and(
        eq(voices.jobId, job.jobId),
        eq(voices.projectId, job.projectId),
        inArray(
          voices.id,
          named.map((n) => n.id),
        ),
      ),
    )
    .all();
  const own = new Set(made.map((v) => v.id));
  const foreign = named.find((n) => !own.has(n.id));
  if (foreign)
    throw refused(`body.speakers.${foreign.i}.voiceId (${foreign.id}) is neither assigned by the request nor made by this job`, {
      path: `body.speakers.${foreign.i}.voiceId`,
      issue: `notFound:${foreign.id}`,
    });
}

export async function failPendingDubbing(db: Db, job: Job): Promise<void> {
  await db
    .update(dubbings)
    .set({ status: "failed", updatedAt: nowIso() })
    .where(and(eq(dubbings.id, storedDubbing(job).dubbingId), eq(dubbings.status, "pending")));
}
