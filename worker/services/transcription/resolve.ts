import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import type { InputOf } from "../../../contracts/services/index";
import { S3Client, S3Error } from "../../../contracts/s3-client";
import { transcripts } from "../../db/schema";
import { validationError } from "../../errors";
import { displayNameOf, extensionOf, requireUsableConnection } from "../../jobs/references";
import { connectionLocation } from "../../storage/connections";
import { putProbes } from "../shared/output-probes";
import type { CreateContext, Resolved } from "../types";

export const TRANSCRIPT_FILES = {
  fullText: "transcript.txt",
  segments: "segments.json",
  srt: "transcript.srt",
  vtt: "transcript.vtt",
} as const;

/**
 * A transcription's create: the connection and bucket, the extension and language hint, then (after
 * the quota check) a ranged GET of the source and an empty PUT at each of the four output keys.
 */
export async function resolveTranscription(ctx: CreateContext, input: InputOf<"transcription">): Promise<Resolved> {
  const { db, settings, projectId } = ctx;
  const conn = await requireUsableConnection(db, projectId, input.connectionId, input.bucket);
  const ext = extensionOf(input.sourceKey);
  if (!settings.transcription.allowedExtensions.includes(ext)) {
    throw validationError(
      `sourceKey must have a supported video extension (${settings.transcription.allowedExtensions.join(", ")}); got ${ext ? "." + ext : "none"}`,
      [{ path: "input.sourceKey", issue: "unsupportedExtension" }],
    );
  }
  const language = input.options?.language;
  if (language && !settings.transcription.supportedSourceLanguages.includes(language.split("-")[0] ?? language)) {
    throw validationError(
      `language ${language} is not a supported source language (${settings.transcription.supportedSourceLanguages.join(", ")})`,
      [{ path: "input.options.language", issue: "unsupportedLanguage" }],
    );
  }

  const textSourceId = newId("transcript");
  const prefix = input.outputPrefix
    ? input.outputPrefix.replace(/\/?$/, "/")
    : `${conn.defaultOutputPrefix.replace(/\/$/, "")}/${textSourceId}/transcripts/`;
  const outputKeys = {
    fullText: prefix + TRANSCRIPT_FILES.fullText,
    segments: prefix + TRANSCRIPT_FILES.segments,
    srt: prefix + TRANSCRIPT_FILES.srt,
    vtt: prefix + TRANSCRIPT_FILES.vtt,
  };

  const probe = async () => {
    const s3 = new S3Client(await connectionLocation(conn, ctx.env.ENCRYPTION_KEY), 10_000);
    try {
      await s3.probeObject(input.bucket, input.sourceKey, 1024);
    } catch (err) {
      const missing = err instanceof S3Error && (err.status === 404 || err.s3Code === "NoSuchKey");
      throw validationError(
        missing
          ? `source object not found: s3://${input.bucket}/${input.sourceKey}`
          : `source object could not be read: ${err instanceof Error ? err.message : String(err)}`,
        [{ path: "input.sourceKey", issue: missing ? "sourceNotFound" : "sourceUnreadable" }],
      );
    }
    await putProbes(s3, input.bucket, Object.values(outputKeys), input.outputPrefix ? "input.outputPrefix" : "input.bucket");
  };

  return {
    input: {
      ...input,
      textSourceId,
      resolvedOutputPrefix: prefix,
      resolvedOutputKeys: outputKeys,
      options: {
        ...(input.options ?? {}),
        preprocessing: { extract: true, denoise: settings.transcription.denoise, separateVocals: settings.transcription.separateVocals },
      },
    },
    sourceDisplayName: displayNameOf(input.sourceKey),
    credits: 1,
    probe,
    record: {
      insert: async (jobId, now) => {
        await db.insert(transcripts).values({
          id: textSourceId,
          projectId,
          jobId,
          status: "pending",
          connectionId: conn.id,
          bucket: input.bucket,
          sourceKey: input.sourceKey,
          outputKeys,
          createdAt: now,
          updatedAt: now,
        });
      },
      remove: async () => {
        await db.delete(transcripts).where(eq(transcripts.id, textSourceId));
      },
    },
  };
}
