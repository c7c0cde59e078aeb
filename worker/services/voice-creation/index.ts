import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import { VoiceCreationResultSchema } from "../../../contracts/services/voice-creation";
import { S3Client, S3Error } from "../../../contracts/s3-client";
import { voices } from "../../db/schema";
import { speaksLanguage } from "../../../contracts/synthesis-languages";
import { validationError } from "../../errors";
import { displayNameOf, extensionOf, requireUsableConnection } from "../../jobs/references";
import { connectionLocation } from "../../storage/connections";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService } from "../types";
import { voiceRoutes } from "./routes";
import { completeVoice, failPendingVoice } from "./store";

/**
 * Voice creation, the Worker's side: create checks (connection, bucket, a media extension, the
 * sample range, a ranged GET of the sample), the pending `vce_` record, the runner's voice saved
 * on completion, and the `/v1/voices` routes. One `voice_creation` credit per voice.
 */

/** What ffmpeg on the runner reads as a voice sample: audio files, or a video's sound. */
export const VOICE_SAMPLE_EXTENSIONS = ["wav", "mp3", "m4a", "aac", "flac", "ogg", "opus", "webm", "mp4", "mov", "mkv"];

export const voiceCreationWorker = defineWorkerService<"voice_creation">({
  meter: "voice_creation",
  resolve: async (ctx, input) => {
    const { db, projectId } = ctx;
    const conn = await requireUsableConnection(db, projectId, input.connectionId, input.bucket);
    const ext = extensionOf(input.sourceKey);
    if (!VOICE_SAMPLE_EXTENSIONS.includes(ext))
      throw validationError(
        `sourceKey must be an audio or video file (${VOICE_SAMPLE_EXTENSIONS.join(", ")}); got ${ext ? "." + ext : "none"}`,
        [{ path: "input.sourceKey", issue: "unsupportedExtension" }],
      );
    if (input.startSec !== undefined && input.endSec !== undefined && input.endSec <= input.startSec)
      throw validationError("endSec must be after startSec", [{ path: "input.endSec", issue: "endBeforeStart" }]);
    const speech = ctx.settings.dubbing.speechEngine;
    if (!speaksLanguage(speech, input.language))
      throw validationError(`the ${speech} speech engine cannot speak ${input.language}`, [
        { path: "input.language", issue: "unsupportedSpeechLanguage" },
      ]);
    const voiceId = newId("voice");
    const sample = {
      connectionId: conn.id,
      bucket: input.bucket,
      sourceKey: input.sourceKey,
      ...(input.startSec !== undefined ? { startSec: input.startSec } : {}),
      ...(input.endSec !== undefined ? { endSec: input.endSec } : {}),
    };
    return {
      // A cloning engine keeps its reference clip here; a profile keeps nothing in the bucket.
      input: { ...input, voiceId, outputPrefix: `${conn.defaultOutputPrefix.replace(/\/$/, "")}/voices/${voiceId}/` },
      sourceDisplayName: displayNameOf(input.sourceKey),
      credits: 1,
      probe: async () => {
        const s3 = new S3Client(await connectionLocation(conn, ctx.env.ENCRYPTION_KEY), 10_000);
        try {
          await s3.probeObject(input.bucket, input.sourceKey, 1024);
        } catch (err) {
          const missing = err instanceof S3Error && (err.status === 404 || err.s3Code === "NoSuchKey");
          throw validationError(
            missing ? `sample not found: s3://${input.bucket}/${input.sourceKey}` : `sample could not be read: ${String(err)}`,
            [{ path: "input.sourceKey", issue: missing ? "sourceNotFound" : "sourceUnreadable" }],
          );
        }
      },
      record: {
        insert: async (jobId, now) => {
          await db.insert(voices).values({
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
          });
        },
        remove: async () => {
          await db.delete(voices).where(eq(voices.id, voiceId));
        },
      },
    };
  },
  sinks: {
    voice_creation: validatedSink(VoiceCreationResultSchema, "voice creation", async ({ db, job }, r) => {
      await completeVoice(db, String(job.input["voiceId"]), r);
      return {
        ok: true,
        summary: { voiceId: r.voiceId, kind: r.spec.kind, engine: r.spec.engine, model: r.model, sampleSpeechSec: r.sampleSpeechSec },
      };
    }),
  },
  onEnded: async ({ db }, job) => {
    if (job.status !== "completed") await failPendingVoice(db, String(job.input["voiceId"]));
  },
  runnerSettings: (s) => ({ runner: s.runner, dubbing: s.dubbing }),
  routes: { "/voices": voiceRoutes },
});
