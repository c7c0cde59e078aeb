import { and, eq } from "drizzle-orm";
import type { CreateJobRequest } from "../../contracts/job-requests";
import type { Settings } from "../../contracts/settings";
import type { Plan } from "../../contracts/service-types";
import { newId } from "../../contracts/ids";
import { S3Client, S3Error } from "../../contracts/s3-client";
import type { Db } from "../db/client";
import { jobs, storageConnections, transcripts } from "../db/schema";
import { ApiError, notFound, validationError } from "../errors";
import { connectionLocation } from "../storage/connections";

/**
 * The synchronous reference checks of POST /v1/jobs, with the spec's exact messages and detail
 * issues. They run before any credit is charged, so a rejected request costs nothing.
 */

export interface Resolved {
  /** Input as stored on the job (defaults filled, ids assigned). */
  input: Record<string, unknown>;
  sourceDisplayName?: string;
  /** Pieces the credit calculation needs. */
  maxClips?: number;
  thumbnailCount?: number;
  /** A transcript row to create with the job (s3_direct transcription). */
  newTranscript?: { id: string; connectionId: string; bucket: string; sourceKey: string; outputKeys: Record<string, string> };
}

type TranscriptRow = typeof transcripts.$inferSelect;

async function findTranscript(db: Db, projectId: string, id: string): Promise<TranscriptRow | undefined> {
  return db.select().from(transcripts).where(and(eq(transcripts.id, id), eq(transcripts.projectId, projectId))).get();
}

/** metadata / indexer / translation / dubbing style: `transcription not found: <id>`, `noSegments:<id>`. */
async function requireSegmentedTranscript(db: Db, projectId: string, id: string, path: string): Promise<TranscriptRow> {
  const t = await findTranscript(db, projectId, id);
  if (!t) throw notFound(`transcription not found: ${id}`, [{ path, issue: `notFound:${id}` }]);
  if (t.status !== "completed") throw validationError(`transcription ${id} is not completed`, [{ path, issue: `jobNotCompleted:${id}` }]);
  if (t.segmentCount === 0) throw validationError(`transcription ${id} has no segments`, [{ path, issue: `noSegments:${id}` }]);
  return t;
}

/** clip_generation / thumbnail style: `emptySegments`, `jobNotCompleted`, missing job row. */
async function requireClipSource(db: Db, projectId: string, id: string): Promise<TranscriptRow> {
  const path = "input.textSourceId";
  const t = await findTranscript(db, projectId, id);
  if (!t) throw notFound(`transcription not found: ${id}`, [{ path, issue: `notFound:${id}` }]);
  const job = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.id, t.jobId)).get();
  if (!job) throw notFound(`transcription job not found: ${t.jobId}`, [{ path, issue: `notFound:${t.jobId}` }]);
  if (job.status !== "completed" || t.status !== "completed") throw validationError(`transcription job ${t.jobId} is not completed (status ${job.status})`, [{ path, issue: "jobNotCompleted" }]);
  if (t.segmentCount === 0) throw validationError("transcription has no segments", [{ path, issue: "emptySegments" }]);
  return t;
}

function extensionOf(key: string): string {
  const name = key.split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : "";
}

function displayNameOf(key: string): string {
  const name = key.split("/").pop() ?? key;
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(0, dot) : name;
}

export const TRANSCRIPT_FILES = { fullText: "transcript.txt", segments: "segments.json", srt: "transcript.srt", vtt: "transcript.vtt" } as const;

async function resolveTranscription(db: Db, encryptionKey: string, projectId: string, req: Extract<CreateJobRequest, { serviceType: "transcription" }>, settings: Settings): Promise<Resolved> {
  const input = req.input;
  const conn = await requireUsableConnection(db, projectId, input.connectionId, input.bucket);
  const ext = extensionOf(input.sourceKey);
  if (!settings.transcription.allowedExtensions.includes(ext)) {
    throw validationError(`sourceKey must have a supported video extension (${settings.transcription.allowedExtensions.join(", ")}); got ${ext ? "." + ext : "none"}`, [
      { path: "input.sourceKey", issue: "unsupportedExtension" },
    ]);
  }
  const language = input.options?.language;
  if (language && !settings.transcription.supportedSourceLanguages.includes(language.split("-")[0] ?? language)) {
    throw validationError(`language ${language} is not a supported source language (${settings.transcription.supportedSourceLanguages.join(", ")})`, [
      { path: "input.options.language", issue: "unsupportedLanguage" },
    ]);
  }

  const textSourceId = newId("transcript");
  const prefix = input.outputPrefix ? input.outputPrefix.replace(/\/?$/, "/") : `${conn.defaultOutputPrefix.replace(/\/$/, "")}/${textSourceId}/transcripts/`;
  const outputKeys = {
    fullText: prefix + TRANSCRIPT_FILES.fullText,
    segments: prefix + TRANSCRIPT_FILES.segments,
    srt: prefix + TRANSCRIPT_FILES.srt,
    vtt: prefix + TRANSCRIPT_FILES.vtt,
  };

  const s3 = new S3Client(await connectionLocation(conn, encryptionKey), 10_000);
  try {
    await s3.probeObject(input.bucket, input.sourceKey, 1024);
  } catch (err) {
    const missing = err instanceof S3Error && (err.status === 404 || err.s3Code === "NoSuchKey");
    throw validationError(
      missing ? `source object not found: s3://${input.bucket}/${input.sourceKey}` : `source object could not be read: ${err instanceof Error ? err.message : String(err)}`,
      [{ path: "input.sourceKey", issue: missing ? "sourceNotFound" : "sourceUnreadable" }],
    );
  }
  // The four probes are independent: run them together (the create's slowest part otherwise).
  const probes = await Promise.allSettled(Object.values(outputKeys).map((key) => s3.putObject(input.bucket, key, new Uint8Array(0), "application/octet-stream", 0).then(() => key)));
  const refused = probes.findIndex((p) => p.status === "rejected");
  if (refused >= 0) {
    const key = Object.values(outputKeys)[refused];
    const err = (probes[refused] as PromiseRejectedResult).reason as unknown;
    throw validationError(`output key is not writable: s3://${input.bucket}/${key} (${err instanceof Error ? err.message : String(err)})`, [
      { path: input.outputPrefix ? "input.outputPrefix" : "input.bucket", issue: "outputNotWritable" },
    ]);
  }
  return {
    input: { ...input, textSourceId, resolvedOutputPrefix: prefix, resolvedOutputKeys: outputKeys, options: { ...(input.options ?? {}), preprocessing: { extract: true, denoise: settings.transcription.denoise, separateVocals: settings.transcription.separateVocals } } },
    sourceDisplayName: displayNameOf(input.sourceKey),
    newTranscript: { id: textSourceId, connectionId: conn.id, bucket: input.bucket, sourceKey: input.sourceKey, outputKeys },
  };
}

/** The connection exists in the project, is active, and allows the bucket. */
async function requireUsableConnection(db: Db, projectId: string, connectionId: string, bucket: string) {
  const conn = await db.select().from(storageConnections).where(and(eq(storageConnections.id, connectionId), eq(storageConnections.projectId, projectId))).get();
  if (!conn) throw notFound(`storage connection not found: ${connectionId}`, [{ path: "input.connectionId", issue: `notFound:${connectionId}` }]);
  if (conn.status !== "active") throw validationError(`storage connection ${conn.id} is not active`, [{ path: "input.connectionId", issue: "connectionInactive" }]);
  if (!conn.buckets.includes(bucket)) {
    throw validationError(`bucket ${bucket} is not in the connection's buckets (${conn.buckets.join(", ")})`, [{ path: "input.bucket", issue: "bucketNotAllowed" }]);
  }
  return conn;
}

/**
 * Clip and thumbnail sources: fields sent explicitly are checked like a transcription's; omitted
 * ones are resolved from the transcription job.
 */
async function checkedSource<T extends { connectionId?: string; bucket?: string; sourceKey?: string; sourceType?: string }>(db: Db, projectId: string, input: T, t: TranscriptRow): Promise<T> {
  const resolved = sourceFromTranscript(input, t);
  if ((input.connectionId || input.bucket) && resolved.connectionId && resolved.bucket) await requireUsableConnection(db, projectId, resolved.connectionId, resolved.bucket);
  return resolved;
}

/** Resolves the clip/thumbnail source fields from the transcription's job when omitted. */
function sourceFromTranscript<T extends { connectionId?: string; bucket?: string; sourceKey?: string; sourceType?: string }>(input: T, t: TranscriptRow): T {
  return { ...input, sourceType: input.sourceType ?? "s3_direct", connectionId: input.connectionId ?? t.connectionId ?? undefined, bucket: input.bucket ?? t.bucket ?? undefined, sourceKey: input.sourceKey ?? t.sourceKey ?? undefined };
}

export async function resolveReferences(db: Db, encryptionKey: string, projectId: string, plan: Plan, req: CreateJobRequest, settings: Settings): Promise<Resolved> {
  switch (req.serviceType) {
    case "transcription":
      return resolveTranscription(db, encryptionKey, projectId, req, settings);
    case "metadata":
      await requireSegmentedTranscript(db, projectId, req.input.textSourceId, "input.textSourceId");
      return { input: { ...req.input } };
    case "translation":
      await requireSegmentedTranscript(db, projectId, req.input.textSourceId, "input.textSourceId");
      return { input: { ...req.input, sourceLayer: req.input.sourceLayer ?? "current" } };
    case "dubbing": {
      await requireSegmentedTranscript(db, projectId, req.input.transcriptionId, "input.transcriptionId");
      if (req.input.translationId) throw notFound(`translation not found: ${req.input.translationId}`, [{ path: "input.translationId", issue: `notFound:${req.input.translationId}` }]);
      const voices = Object.entries(req.input.options?.voiceAssignments ?? {});
      const [label, voice] = voices[0] ?? [];
      if (label && voice) throw notFound(`voice not found: ${voice}`, [{ path: `input.options.voiceAssignments.${label}`, issue: `notFound:${voice}` }]);
      return { input: { ...req.input, sourceLayer: req.input.sourceLayer ?? "current" } };
    }
    case "indexer": {
      const ids = [...new Set(req.input.textSourceIds)];
      for (const id of ids) await requireSegmentedTranscript(db, projectId, id, "input.textSourceIds");
      return { input: { textSourceIds: ids } };
    }
    case "summarization": {
      const ref = req.input.textSourceJobId;
      const path = "textSourceJobId";
      let t: TranscriptRow | undefined;
      if (ref.startsWith("job_")) {
        const job = await db.select({ id: jobs.id, input: jobs.data }).from(jobs).where(and(eq(jobs.id, ref), eq(jobs.projectId, projectId), eq(jobs.serviceType, "transcription"))).get();
        const txt = job ? ((job.input["input"] as Record<string, unknown> | undefined)?.["textSourceId"] as string | undefined) : undefined;
        t = txt ? await findTranscript(db, projectId, txt) : undefined;
        if (!t) throw notFound(`transcription not found for job: ${ref}`, [{ path, issue: "notFound" }]);
      } else {
        t = await findTranscript(db, projectId, ref);
        if (!t) throw notFound(`transcription not found: ${ref}`, [{ path, issue: "notFound" }]);
      }
      if (t.status !== "completed" || t.segmentCount === 0) throw validationError(`transcription ${t.id} has no segments`, [{ path, issue: "noSegments" }]);
      return { input: { ...req.input, textSourceId: t.id, config: { synthesis: "platform-default" } } };
    }
    case "clip_generation": {
      const t = await requireClipSource(db, projectId, req.input.textSourceId);
      const policy = plan === "enterprise" ? settings.policy.clip_generation.enterprise : settings.policy.clip_generation.free;
      const o = req.input.options ?? {};
      const maxClips = Math.min(o.maxClips ?? policy.maxClipsDefault, policy.maxClipsCap);
      if (o.layout && !policy.supportedLayouts.includes(o.layout)) throw validationError(`layout ${o.layout} is not supported (${policy.supportedLayouts.join(", ")})`, [{ path: "input.options.layout", issue: "unsupportedLayout" }]);
      if (o.fillStyle && !policy.supportedFillStyles.includes(o.fillStyle)) throw validationError(`fillStyle ${o.fillStyle} is not supported`, [{ path: "input.options.fillStyle", issue: "unsupportedFillStyle" }]);
      if (o.categoryOverride && (!policy.allowCategoryOverride || !policy.supportedCategories.includes(o.categoryOverride))) {
        throw validationError(`categoryOverride ${o.categoryOverride} is not allowed (${policy.allowCategoryOverride ? policy.supportedCategories.join(", ") : "overrides are disabled"})`, [{ path: "input.options.categoryOverride", issue: "unsupportedCategory" }]);
      }
      return { input: { ...(await checkedSource(db, projectId, req.input, t)), options: { ...o, maxClips }, analysis: { vision: true, category: true } }, maxClips };
    }
    case "thumbnail": {
      const t = await requireClipSource(db, projectId, req.input.textSourceId);
      const policy = plan === "enterprise" ? settings.policy.thumbnail.enterprise : settings.policy.thumbnail.free;
      const o = req.input.options ?? {};
      if (o.ratioWidth !== undefined && o.ratioHeight !== undefined && o.resolution !== undefined) checkThumbnailSize(plan, o.ratioWidth, o.ratioHeight, o.resolution);
      const thumbnailCount = Math.min(o.thumbnailCount ?? policy.defaultThumbnailCount, 3);
      return { input: { ...(await checkedSource(db, projectId, req.input, t)), options: { ...o, thumbnailCount, nonAiThumbnailCount: o.nonAiThumbnailCount ?? policy.maxNonAiThumbnailCount } }, thumbnailCount };
    }
  }
}

/** The spec's image-model rules: free 1:1, 3:2, 2:3 at 1024; enterprise up to 3:1, edges ≤ 3840, 655,360–8,294,400 px. */
export function checkThumbnailSize(plan: Plan, rw: number, rh: number, resolution: number): void {
  const snap = (v: number) => Math.round(v / 16) * 16;
  const short = snap(resolution);
  const long = snap((resolution * Math.max(rw, rh)) / Math.min(rw, rh));
  const fail = (msg: string) => {
    throw new ApiError("validationError", msg, [{ path: "input.options", issue: "invalidRatioResolution" }]);
  };
  if (plan !== "enterprise") {
    const ok = [
      [1, 1],
      [3, 2],
      [2, 3],
    ].some(([w, h]) => rw * (h as number) === rh * (w as number));
    if (!ok || resolution !== 1024) fail("the free plan image model allows only ratios 1:1, 3:2, 2:3 at resolution 1024");
    return;
  }
  if (Math.max(rw, rh) / Math.min(rw, rh) > 3) fail("aspect ratio must be at most 3:1");
  if (long > 3840 || short > 3840) fail(`edges must be at most 3840 px (got ${short}x${long} after snapping to multiples of 16)`);
  const px = short * long;
  if (px < 655_360 || px > 8_294_400) fail(`total pixels must be between 655,360 and 8,294,400 (got ${px})`);
}
