import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import { flattenOutputUrls, redactUrl } from "../../../contracts/presigned";
import { VoiceCreationResultSchema } from "../../../contracts/services/voice-creation";
import { S3Client } from "../../../contracts/s3-client";
import { voices } from "../../db/schema";
import { speaksLanguage } from "../../../contracts/synthesis-languages";
import { validationError } from "../../errors";
import { displayNameOf, extensionOf } from "../../storage/object-keys";
import { requireUsableConnection } from "../../storage/connections";
import { connectionLocation } from "../../storage/connections";
import { reportedKeysRefusal } from "../../storage/object-keys";
import { resolvePresigned, withRecord } from "../shared/presigned-input";
import { probeBucketSource } from "../shared/source-probe";
import { validatedSink } from "../shared/step-result";
import { requireJobsOwn, requireOwnOutput } from "../shared/result-checks";
import { defineWorkerService, type CreateContext, type Resolved, type ResultCheck } from "../types";
import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { voiceRoutes } from "./routes";
import { consentsForJob } from "../voice-consent/store";
import { completeVoice, failPendingVoice, storedVoiceCreation } from "./store";

/**
 * Voice creation, the Worker's side: create checks (connection, bucket, a media extension, the
 * sample range, a ranged GET of the sample), the pending `vce_` record, the runner's voice saved
 * on completion, and the `/v1/voices` routes. One `voice_creation` credit per voice.
 */

/** What ffmpeg on the runner reads as a voice sample: audio files, or a video's sound. */
export const VOICE_SAMPLE_EXTENSIONS = ["wav", "mp3", "m4a", "aac", "flac", "ogg", "opus", "webm", "mp4", "mov", "mkv"];

/** The voice is the job's own, and its reference clip lies under the job's prefix (or is its `reference` URL). */
const checkVoice: ResultCheck = ({ job }, raw) => {
  const parsed = VoiceCreationResultSchema.safeParse(raw);
  if (!parsed.success) return;
  const stored = storedVoiceCreation(job);
  requireJobsOwn(parsed.data.voiceId, stored.voiceId, "result.voiceId");
  const ref = parsed.data.referenceKey;
  const prefix = stored.sourceType === "s3_presigned" ? "" : stored.outputPrefix;
  if (ref !== null) requireOwnOutput(job, ref, { prefix, outputName: "reference" }, "result.referenceKey");
};

export const voiceCreationWorker = defineWorkerService<"voice_creation">({
  meter: "voice_creation",
  resolve: resolveVoiceCreation,
  sinks: {
    voice_creation: validatedSink(VoiceCreationResultSchema, "voice creation", async ({ db, job }, r) => {
      const refused = reportedKeysRefusal("voice creation", r.referenceKey ? [["referenceKey", r.referenceKey] as const] : []);
      if (refused) return { ok: false, error: refused };
      await completeVoice(db, storedVoiceCreation(job).voiceId, r);
      return {
        ok: true,
        summary: { voiceId: r.voiceId, kind: r.spec.kind, engine: r.spec.engine, model: r.model, sampleSpeechSec: r.sampleSpeechSec },
      };
    }),
  },
  resultChecks: { voice_creation: checkVoice },
  onEnded: async ({ db }, job) => {
    if (job.status !== "completed") await failPendingVoice(db, storedVoiceCreation(job).voiceId);
  },
  runnerSettings: (s) => ({ runner: s.runner, dubbing: s.dubbing }),
  routes: { "/voices": voiceRoutes },
});

/**
 * The create of a voice: the sample (a bucket's object, probed with a ranged GET, or a presigned
 * GET URL checked and probed as every presigned URL is), its range and language, the pending record.
 */
async function resolveVoiceCreation(
  ctx: CreateContext,
  input: InputOf<"voice_creation">,
): Promise<Resolved<StoredInputOf<"voice_creation">>> {
  const { db, projectId } = ctx;
  const presigned =
    input.sourceType === "s3_presigned" ? { input, grant: resolvePresigned(ctx, { ...input, outputUrls: input.outputUrls ?? {} }) } : null;
  const conn = input.sourceType === "s3_presigned" ? null : await requireUsableConnection(db, projectId, input.connectionId, input.bucket);
  const samplePath = input.sourceType === "s3_presigned" ? (presigned?.grant.sourcePath ?? "") : input.sourceKey;
  const field = presigned ? "sourceUrl" : "sourceKey";
  const ext = extensionOf(samplePath);
  if (!VOICE_SAMPLE_EXTENSIONS.includes(ext))
    throw validationError(
      `${field} must be an audio or video file (${VOICE_SAMPLE_EXTENSIONS.join(", ")}); got ${ext ? "." + ext : "none"}`,
      [{ path: `input.${field}`, issue: "unsupportedExtension" }],
    );
  if (input.startSec !== undefined && input.endSec !== undefined && input.endSec <= input.startSec)
    throw validationError("endSec must be after startSec", [{ path: "input.endSec", issue: "endBeforeStart" }]);
  const speech = ctx.settings.dubbing.speechEngine;
  if (!speaksLanguage(speech, input.language))
    throw validationError(`the ${speech} speech engine cannot speak ${input.language}`, [
      { path: "input.language", issue: "unsupportedSpeechLanguage" },
    ]);
  const voiceId = newId("voice");
  const range = {
    ...(input.startSec !== undefined ? { startSec: input.startSec } : {}),
    ...(input.endSec !== undefined ? { endSec: input.endSec } : {}),
  };
  const record = (sample: Record<string, unknown>) => ({
    statements: async (jobId: string, now: string) => [
      db.insert(voices).values({
        id: voiceId,
        projectId,
        name: input.name,
        status: "pending",
        origin: "api",
        jobId,
        language: input.language,
        sample,
        createdAt: now,
        updatedAt: now,
      }),
    ],
    remove: async () => {
      await db.delete(voices).where(eq(voices.id, voiceId));
    },
  });

  // A presigned sample names no object a consent could be given for: under the policy it makes a profile.
  const voiceConsent = await consentsForJob(
    db,
    projectId,
    input.sourceType === "s3_presigned" ? {} : { sample: { connectionId: input.connectionId, bucket: input.bucket, key: input.sourceKey } },
  );

  if (presigned) {
    const { grant } = presigned;
    // A voice's URLs are single ones: flattening only types the redacted map as the job stores it.
    const redacted = { sourceUrl: redactUrl(presigned.input.sourceUrl), outputUrls: flattenOutputUrls(grant.redacted.outputUrls) };
    return {
      input: { ...presigned.input, ...redacted, voiceId, voiceConsent },
      sourceDisplayName: displayNameOf(samplePath),
      credits: 1,
      probe: grant.probe,
      // The voice shows its sample's URL redacted, as the job does.
      record: withRecord(grant, record({ sourceUrl: grant.redacted.sourceUrl, ...range })),
    };
  }
  // Narrows the types only: a presigned voice returned above, and a bucket one has its connection.
  if (input.sourceType === "s3_presigned" || !conn) throw new Error("unreachable");
  return {
    // A cloning engine keeps its reference clip here; a profile keeps nothing in the bucket.
    input: { ...input, voiceId, voiceConsent, outputPrefix: `${conn.defaultOutputPrefix.replace(/\/$/, "")}/voices/${voiceId}/` },
    sourceDisplayName: displayNameOf(input.sourceKey),
    credits: 1,
    probe: async () => {
      const s3 = new S3Client(await connectionLocation(conn, ctx.env.ENCRYPTION_KEY), 10_000);
      await probeBucketSource(s3, {
        bucket: input.bucket,
        key: input.sourceKey,
        path: "input.sourceKey",
        noun: "sample",
        runner: ctx.settings.runner,
      });
    },
    record: record({ connectionId: conn.id, bucket: input.bucket, sourceKey: input.sourceKey, ...range }),
  };
}
