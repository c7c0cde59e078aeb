import { and, eq, isNull } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { VoiceConsentResultSchema, type SubjectMedia } from "../../../contracts/services/voice-consent";
import { S3Client } from "../../../contracts/s3-client";
import { isSpeakerSubject, MAX_VOICE_DISTANCE, MIN_WORD_RECALL, subjectKey, type ConsentSubject } from "../../../contracts/voice-consent";
import type { Db } from "../../db/client";
import { consentPhrases, voiceConsents } from "../../db/schema";
import { notFound, validationError } from "../../errors";
import { blobStore } from "../../storage/blobs";
import { connectionLocation, requireUsableConnection } from "../../storage/connections";
import { displayNameOf, extensionOf } from "../../storage/object-keys";
import { requireSegmentedTranscript } from "../../transcripts/lookup";
import { transcriptSpeakerTurns } from "../../transcripts/speaker-turns";
import { requireJobsOwn } from "../shared/result-checks";
import { probeBucketSource } from "../shared/source-probe";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService, type CreateContext, type Resolved, type ResultCheck } from "../types";
import { VOICE_SAMPLE_EXTENSIONS } from "../voice-creation/index";
import { voiceConsentRoutes } from "./routes";
import { decideConsent, refusePendingConsent, storedVoiceConsent } from "./store";

/**
 * Voice consent, the Worker's side: a recorded consent's create checks (the phrase: this project's,
 * unused, unexpired; the subject's media and, for a speaker, its turns; the recording in the same
 * bucket, probed), the pending `vcn_` record and the phrase used up in the create's batch, the
 * runner's decision saved on completion, and the `/v1/voice-consents` record routes. Not charged.
 */

/** The decision is about the job's own consent. */
const checkDecision: ResultCheck = ({ job }, raw) => {
  const parsed = VoiceConsentResultSchema.safeParse(raw);
  if (!parsed.success) return;
  requireJobsOwn(parsed.data.consentId, storedVoiceConsent(job).consentId, "result.consentId");
};

export const voiceConsentWorker = defineWorkerService<"voice_consent">({
  meter: null,
  resolve: resolveVoiceConsent,
  sinks: {
    voice_consent: validatedSink(VoiceConsentResultSchema, "voice consent", async ({ db, job }, r) => {
      await decideConsent(db, storedVoiceConsent(job).consentId, r);
      return {
        ok: true,
        summary: { consentId: r.consentId, decision: r.decision, wordRecall: r.check.wordRecall, voiceDistance: r.check.voiceDistance },
      };
    }),
  },
  resultChecks: { voice_consent: checkDecision },
  onEnded: async ({ db }, job) => {
    if (job.status !== "completed")
      await refusePendingConsent(db, storedVoiceConsent(job).consentId, `the check did not complete (job ${job.status})`);
  },
  runnerSettings: (s) => ({ runner: s.runner, transcription: s.transcription }),
  routes: { "/voice-consents": voiceConsentRoutes },
});

/** The subject's media: a transcript's source and the speaker's turns in it, or the sample object. */
async function subjectMedia(
  ctx: CreateContext,
  subject: ConsentSubject,
): Promise<{ media: SubjectMedia; connectionId: string; bucket: string }> {
  if (!isSpeakerSubject(subject)) {
    await requireUsableConnection(ctx.db, ctx.projectId, subject.connectionId, subject.bucket, "input.subject");
    return { media: { kind: "sample", sourceKey: subject.key }, connectionId: subject.connectionId, bucket: subject.bucket };
  }
  const path = "input.subject.transcriptionId";
  const t = await requireSegmentedTranscript(ctx.db, ctx.projectId, subject.transcriptionId, path);
  if (!t.connectionId || !t.bucket || !t.sourceKey)
    throw validationError(`transcription ${t.id} has no source media in a bucket to find the speaker's voice in`, [
      { path, issue: "noSourceMedia" },
    ]);
  const turns = (await transcriptSpeakerTurns(ctx.db, blobStore(ctx.env.BLOBS), t))
    .filter((x) => x.speaker === subject.speakerLabel)
    .map(({ start, end }) => ({ start, end }));
  if (turns.length === 0)
    throw validationError(`transcription ${t.id} has no segments of ${subject.speakerLabel}`, [
      { path: "input.subject.speakerLabel", issue: "speakerNotFound" },
    ]);
  const media = { kind: "speaker" as const, ...subject, sourceKey: t.sourceKey, turns };
  return { media, connectionId: t.connectionId, bucket: t.bucket };
}

async function usablePhrase(db: Db, projectId: string, phraseId: string) {
  const path = "input.phraseId";
  const phrase = await db
    .select()
    .from(consentPhrases)
    .where(and(eq(consentPhrases.id, phraseId), eq(consentPhrases.projectId, projectId)))
    .get();
  if (!phrase) throw notFound(`phrase not found: ${phraseId}`, [{ path, issue: `notFound:${phraseId}` }]);
  if (phrase.usedBy)
    throw validationError(`phrase ${phraseId} was used by ${phrase.usedBy}; ask for a new one`, [{ path, issue: "phraseUsed" }]);
  if (phrase.expiresAt <= new Date().toISOString())
    throw validationError(`phrase ${phraseId} expired at ${phrase.expiresAt}; ask for a new one`, [{ path, issue: "phraseExpired" }]);
  return phrase;
}

async function resolveVoiceConsent(ctx: CreateContext, input: InputOf<"voice_consent">): Promise<Resolved<StoredInputOf<"voice_consent">>> {
  const { db, projectId } = ctx;
  const phrase = await usablePhrase(db, projectId, input.phraseId);
  const subject = await subjectMedia(ctx, input.subject);
  const rec = input.recording;
  // One storage grant per job: the recording is read through the subject's connection and bucket.
  if (rec.connectionId !== subject.connectionId || rec.bucket !== subject.bucket)
    throw validationError(`the recording must be in the subject's bucket (connection ${subject.connectionId}, bucket ${subject.bucket})`, [
      { path: "input.recording", issue: "recordingBucketMismatch" },
    ]);
  const conn = await requireUsableConnection(db, projectId, rec.connectionId, rec.bucket, "input.recording");
  const ext = extensionOf(rec.key);
  if (!VOICE_SAMPLE_EXTENSIONS.includes(ext))
    throw validationError(
      `recording.key must be an audio or video file (${VOICE_SAMPLE_EXTENSIONS.join(", ")}); got ${ext ? "." + ext : "none"}`,
      [{ path: "input.recording.key", issue: "unsupportedExtension" }],
    );
  const consentId = newId("voiceConsent");
  return {
    input: {
      consentId,
      connectionId: rec.connectionId,
      bucket: rec.bucket,
      sourceKey: rec.key,
      phrase: { phraseId: phrase.id, text: phrase.text, words: phrase.words, speakerName: phrase.speakerName },
      subject: subject.media,
      language: phrase.language,
      thresholds: { minWordRecall: MIN_WORD_RECALL, maxVoiceDistance: MAX_VOICE_DISTANCE },
    },
    sourceDisplayName: displayNameOf(rec.key),
    credits: 0,
    probe: async () => {
      const s3 = new S3Client(await connectionLocation(conn, ctx.env.ENCRYPTION_KEY), 10_000);
      await probeBucketSource(s3, {
        bucket: rec.bucket,
        key: rec.key,
        path: "input.recording.key",
        noun: "recording",
        runner: ctx.settings.runner,
      });
    },
    record: {
      statements: async (jobId, now) => [
        db.insert(voiceConsents).values({
          id: consentId,
          projectId,
          kind: "recording",
          status: "pending",
          subject: input.subject,
          subjectKey: subjectKey(input.subject),
          statement: null,
          createdBy: ctx.actor,
          phraseId: phrase.id,
          recording: rec,
          jobId,
          check: null,
          reason: null,
          createdAt: now,
          updatedAt: now,
          revokedAt: null,
        }),
        db
          .update(consentPhrases)
          .set({ usedBy: consentId })
          .where(and(eq(consentPhrases.id, phrase.id), isNull(consentPhrases.usedBy))),
      ],
      remove: async () => {
        await db.delete(voiceConsents).where(eq(voiceConsents.id, consentId));
        await db.update(consentPhrases).set({ usedBy: null }).where(eq(consentPhrases.usedBy, consentId));
      },
    },
  };
}
