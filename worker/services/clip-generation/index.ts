import { and, eq } from "drizzle-orm";
import { Hono } from "hono";
import { ClipGenerationResultSchema } from "../../../contracts/clips";
import type { Job } from "../../../contracts/job";
import { ClipGenerationStoredSchema } from "../../../contracts/services/clip-generation";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import { clipGenerations } from "../../db/schema";
import type { AppBindings } from "../../env";
import { notFound } from "../../errors";
import { ok } from "../../http/envelope";
import { reportedKeysRefusal } from "../../storage/object-keys";
import { BRAND_LOGO_CALL } from "../../../contracts/branding";
import { HANDOVER_TRANSCRIPT_CALL } from "../../../contracts/presigned";
import { fetchTranscriptionStep, handOver, handoverTranscriptCallNoting, type NoteRevision } from "../shared/transcript-handover";
import { brandLogoCall, copyBrandLogo } from "./logo";
import { requireOwnOutput } from "../shared/result-checks";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService, runnerBase, type ResultCheck } from "../types";
import { resolveClipGeneration } from "./resolve";
import { clipResultOf, saveClipResult } from "./store";
import { nowIso } from "../../../contracts/clock";
import { currentRevisionOf, staleness } from "../../transcripts/staleness";

/**
 * Clip generation, the Worker's side: create checks (resolve.ts), the in-Worker step that hands the
 * transcript to the runner, the record (`clp_`) and its route.
 */

const PREVIEW_CHARS = 200;

/** The job's stored input, typed (resolve.ts wrote it through the same schema). */
const storedOf = (job: Job) => ClipGenerationStoredSchema.parse(job.input);

const saveClips = validatedSink(ClipGenerationResultSchema, "clip", async ({ env, db, job }, r) => {
  const refused = reportedKeysRefusal(
    "clip",
    r.clips.flatMap(
      (c, i) =>
        [
          [`clips.${i}.videoKey`, c.videoKey],
          [`clips.${i}.posterKey`, c.posterKey],
        ] as const,
    ),
  );
  if (refused) return { ok: false, error: refused };
  const id = storedOf(job).clipGenerationId;
  await saveClipResult(env, db, job.projectId, id, r);
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
});

/** The captions come from the transcript handed over: its revision is the one the record notes. */
const noteCaptionRevision: NoteRevision = async ({ db, job }, revision) => {
  await db
    .update(clipGenerations)
    .set({ transcriptRevision: revision })
    .where(eq(clipGenerations.id, storedOf(job).clipGenerationId));
};

/** Each clip's video and poster are the job's own: under `{prefix}{clipGenerationId}/`, or its presigned URLs. */
const checkClips: ResultCheck = ({ job }, raw) => {
  const parsed = ClipGenerationResultSchema.safeParse(raw);
  if (!parsed.success) return;
  const stored = storedOf(job);
  // An s3_presigned job has no prefix: its clips must be its URLs.
  const prefix = `${stored.sourceType === "s3_direct" ? stored.resolvedOutputPrefix : ""}${stored.clipGenerationId}/`;
  parsed.data.clips.forEach((clip, i) => {
    requireOwnOutput(job, clip.videoKey, { prefix, outputName: "video" }, `result.clips.${i}.videoKey`);
    requireOwnOutput(job, clip.posterKey, { prefix, outputName: "poster" }, `result.clips.${i}.posterKey`);
  });
};

const clipRoutes = new Hono<AppBindings>().get("/:clipGenerationId", async (c) => {
  const p = principalOf(c);
  const id = c.req.param("clipGenerationId");
  const row = await getDb(c.env.DB)
    .select()
    .from(clipGenerations)
    .where(and(eq(clipGenerations.id, id), eq(clipGenerations.projectId, projectOf(p))))
    .get();
  if (!row) throw notFound(`clip generation not found: ${id}`, [{ path: "clipGenerationId", issue: `notFound:${id}` }]);
  const [result, currentRevision] = await Promise.all([
    clipResultOf(c.env, row),
    currentRevisionOf(getDb(c.env.DB), row.projectId, row.textSourceId),
  ]);
  const r = result ?? {};
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
    // How the clips' audio replaced a redacted transcript's words, and over how many spans; null: nothing was redacted.
    redactedAudio: r["redactedAudio"] ?? null,
    ...staleness(row.transcriptRevision, currentRevision),
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  });
});

export const clipGenerationWorker = defineWorkerService<"clip_generation">({
  meter: "clip_credits",
  quote: (input, s, plan) => {
    const policy = plan === "enterprise" ? s.policy.clip_generation.enterprise : s.policy.clip_generation.free;
    return Math.min(input.options?.maxClips ?? policy.maxClipsDefault, policy.maxClipsCap);
  },
  resolve: resolveClipGeneration,
  policy: (s) => {
    const { minClipSec, maxClipSec, defaultLayout } = s.clips;
    const free = { ...s.policy.clip_generation.free, monthlyCredits: s.quotas.free.clip_credits };
    return {
      clipLengthSec: { min: minClipSec, max: maxClipSec },
      defaultLayout,
      captions: true,
      // `pro` workspaces get the free plan's clip policy until the spec gives pro its own; their credits are their own.
      plans: {
        free,
        pro: { ...free, monthlyCredits: s.quotas.pro.clip_credits },
        enterprise: { ...s.policy.clip_generation.enterprise, monthlyCredits: s.quotas.enterprise.clip_credits },
      },
    };
  },
  sinks: { "clip_generation.fetch_transcription": handOver, clip_generation: saveClips },
  resultChecks: { clip_generation: checkClips },
  runnerCalls: { [HANDOVER_TRANSCRIPT_CALL]: handoverTranscriptCallNoting(noteCaptionRevision), [BRAND_LOGO_CALL]: brandLogoCall },
  workerSteps: { "clip_generation.fetch_transcription": fetchTranscriptionStep(copyBrandLogo, noteCaptionRevision) },
  onEnded: async ({ db }, job) => {
    if (job.status === "completed") return;
    await db
      .update(clipGenerations)
      .set({ status: "failed", updatedAt: nowIso() })
      .where(and(eq(clipGenerations.id, storedOf(job).clipGenerationId), eq(clipGenerations.status, "pending")));
  },
  runnerSettings: (s) => ({ ...runnerBase(s), clips: s.clips }),
  routes: { "/clip-generations": clipRoutes },
});
