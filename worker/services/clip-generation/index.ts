import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { ClipGenerationResultSchema } from "../../../contracts/clips";
import { S3Client } from "../../../contracts/s3-client";
import type { Segment } from "../../../contracts/transcript";
import { projectOf, requireAuth } from "../../auth/middleware";
import { getDb } from "../../db/client";
import { clipGenerations, transcripts } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { PLAN_LIMITS } from "../../jobs/credits";
import { scratchPrefix, storageGrantFor } from "../../jobs/scratch";
import { StepFailure } from "../../../contracts/step-failure";
import { readLayer } from "../../transcripts/store";
import { defineWorkerService, runnerBase, type ResultSink, type WorkerStepHandler } from "../types";
import { resolveClipGeneration } from "./resolve";

/**
 * Clip generation, the Worker's side: create checks (resolve.ts), the in-Worker step that hands the
 * transcript to the runner, the record (`clp_`) and its route.
 */

const PREVIEW_CHARS = 200;

/**
 * `fetch_transcription`: the transcript's current segments (with their words) written as a scratch
 * object in the job's bucket, because a long transcript is far larger than a step output may be.
 */
const fetchTranscription: WorkerStepHandler = async ({ env, job, stage }) => {
  const db = getDb(env.DB);
  const textSourceId = String(job.input["textSourceId"]);
  let out: { transcriptKey: string; segmentCount: number; artifacts: string[] } | undefined;
  const goOn = await stage("fetch_transcription", async () => {
    const t = await db.select().from(transcripts).where(eq(transcripts.id, textSourceId)).get();
    if (!t) throw new StepFailure("source_not_found", `transcription not found: ${textSourceId}`, false);
    const segments = (await readLayer<Segment[]>(db, t.id, "segments")) ?? [];
    const grant = await storageGrantFor(env, job);
    if (!grant) throw new StepFailure("source_access_denied", "the job's storage connection is gone", false);
    const key = `${scratchPrefix(job.jobId)}transcript.json`;
    const body = JSON.stringify({ textSourceId, language: t.language, durationSec: t.durationSec, segments });
    await new S3Client(grant, 30_000).putObject(grant.bucket, key, body, "application/json");
    out = { transcriptKey: key, segmentCount: segments.length, artifacts: [key] };
    return { segments: segments.length, words: segments.reduce((n, s) => n + (s.words?.length ?? 0), 0), bytes: body.length };
  });
  if (!goOn || !out) return { cancelled: true };
  return out;
};

const handOver: ResultSink = async (_ctx, raw) => {
  const key = raw["transcriptKey"];
  if (typeof key !== "string") return { ok: true, summary: {} };
  return { ok: true, summary: {}, output: { transcriptKey: key }, artifacts: [key] };
};

const saveClips: ResultSink = async ({ db, job }, raw) => {
  const parsed = ClipGenerationResultSchema.safeParse(raw);
  if (!parsed.success)
    return {
      ok: false,
      error: {
        code: "processing_failed",
        message: `runner returned an invalid clip result: ${parsed.error.issues[0]?.message ?? "invalid"}`,
      },
    };
  const r = parsed.data;
  const id = String(job.input["clipGenerationId"]);
  await db
    .update(clipGenerations)
    .set({ status: "completed", result: r, updatedAt: new Date().toISOString() })
    .where(eq(clipGenerations.id, id));
  const text = r.clips
    .map((c) => c.text)
    .join(" ")
    .trim();
  return {
    ok: true,
    summary: {
      clipGenerationId: id,
      clipCount: r.clips.length,
      sourceDurationSec: r.sourceDurationSec,
      transcriptPreview: text.slice(0, PREVIEW_CHARS),
    },
  };
};

const clipRoutes = new Hono<AppBindings>().get("/:clipGenerationId", async (c) => {
  const p = requireAuth(c, { key: "project", permission: "job:read" });
  const id = c.req.param("clipGenerationId");
  const row = await getDb(c.env.DB)
    .select()
    .from(clipGenerations)
    .where(and(eq(clipGenerations.id, id), eq(clipGenerations.projectId, projectOf(p))))
    .get();
  if (!row) throw notFound(`clip generation not found: ${id}`, [{ path: "clipGenerationId", issue: `notFound:${id}` }]);
  const r = row.result ?? {};
  return ok(c, {
    clipGenerationId: row.id,
    projectId: row.projectId,
    jobId: row.jobId,
    textSourceId: row.textSourceId,
    status: row.status,
    outputPrefix: row.outputPrefix,
    options: row.options,
    layout: r["layout"] ?? null,
    layoutReason: r["layoutReason"] ?? null,
    fillStyle: r["fillStyle"] ?? null,
    category: r["category"] ?? null,
    categoryConfidence: r["categoryConfidence"] ?? null,
    categorySource: r["categorySource"] ?? null,
    captions: r["captions"] ?? null,
    sourceDurationSec: r["sourceDurationSec"] ?? null,
    candidateCount: r["candidateCount"] ?? null,
    engines: r["engines"] ?? null,
    clipCount: Array.isArray(r["clips"]) ? r["clips"].length : 0,
    clips: r["clips"] ?? [],
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  });
});

export const clipGenerationWorker = defineWorkerService<"clip_generation">({
  meter: "clip_credits",
  resolve: resolveClipGeneration,
  policy: (s) => {
    const { minClipSec, maxClipSec, defaultLayout } = s.clips;
    const free = { ...s.policy.clip_generation.free, monthlyCredits: PLAN_LIMITS.free["clip_credits"] ?? null };
    return {
      clipLengthSec: { min: minClipSec, max: maxClipSec },
      defaultLayout,
      captions: true,
      // `pro` workspaces get the free plan's clip policy until the spec gives pro its own.
      plans: { free, pro: free, enterprise: { ...s.policy.clip_generation.enterprise, monthlyCredits: null } },
    };
  },
  sinks: { "clip_generation.fetch_transcription": handOver, clip_generation: saveClips },
  workerSteps: { "clip_generation.fetch_transcription": fetchTranscription },
  onEnded: async ({ db }, job) => {
    if (job.status === "completed") return;
    await db
      .update(clipGenerations)
      .set({ status: "failed", updatedAt: new Date().toISOString() })
      .where(and(eq(clipGenerations.id, String(job.input["clipGenerationId"])), eq(clipGenerations.status, "pending")));
  },
  runnerSettings: (s) => ({ ...runnerBase(s), clips: s.clips }),
  routes: { "/clip-generations": clipRoutes },
});
