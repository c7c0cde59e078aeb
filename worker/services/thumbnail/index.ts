import { Hono } from "hono";
import { ThumbnailResultSchema } from "../../../contracts/thumbnails";
import { principalOf, projectOf } from "../../auth/middleware";
import { getDb } from "../../db/client";
import type { AppBindings } from "../../env";
import { ok } from "../../http/envelope";
import { ownedTranscript } from "../../transcripts/store";
import { HANDOVER_TRANSCRIPT_CALL } from "../../../contracts/presigned";
import { ThumbnailStoredSchema } from "../../../contracts/services/thumbnail";
import { fetchTranscription, handOver, handoverTranscriptCall } from "../shared/transcript-handover";
import { refused, requireJobsOwn, requireOwnOutput } from "../shared/result-checks";
import { validatedSink } from "../shared/step-result";
import { defineWorkerService, runnerBase, type ResultCheck } from "../types";
import { DEFAULT_THUMBNAIL_SIZE, resolveThumbnail } from "./resolve";
import { addThumbnailRun, readThumbnails, thumbnailCounts } from "./store";
import { reportedKeysRefusal } from "../../storage/object-keys";

/**
 * Thumbnails, the Worker's side: create checks (resolve.ts), the transcript hand-over, and the set
 * on the transcript that every run adds to (store.ts), served by
 * `GET /v1/thumbnails/{transcriptionId}`.
 */

const thumbnailRoutes = new Hono<AppBindings>().get("/:transcriptionId", async (c) => {
  const p = principalOf(c);
  const t = await ownedTranscript(getDb(c.env.DB), projectOf(p), c.req.param("transcriptionId"));
  return ok(c, { transcriptionId: t.id, ...thumbnailCounts(t), thumbnails: await readThumbnails(c.env, t) });
});

/** Adds the run's thumbnails to the transcript's set (store.ts): a redelivered result adds nothing, and concurrent runs both land. */
const saveThumbnails = validatedSink(ThumbnailResultSchema, "thumbnail", async ({ env, job }, r) => {
  const refused = reportedKeysRefusal(
    "thumbnail",
    r.thumbnails.map((th, i) => [`thumbnails.${i}.key`, th.key] as const),
  );
  if (refused) return { ok: false, error: refused };
  const { textSourceId } = ThumbnailStoredSchema.parse(job.input);
  const set = await addThumbnailRun(env, job.projectId, textSourceId, job.jobId, r.thumbnails);
  const covers = r.thumbnails.filter((t) => t.kind === "cover");
  return {
    ok: true,
    summary: {
      textSourceId,
      thumbnailCount: set.thumbnailCount,
      newThumbnailCount: covers.length,
      nonAiThumbnailCount: r.thumbnails.length - covers.length,
      generated: r.engines.image,
      keys: r.thumbnails.map((t) => t.key),
    },
  };
});

/**
 * Each thumbnail is the job's own: its id and job, its bucket, and its key under `{prefix}{jobId}/`
 * (or one of its presigned URLs): the set lives on a transcript other jobs add to, and the console
 * streams these keys.
 */
const checkThumbnails: ResultCheck = ({ job }, raw) => {
  const parsed = ThumbnailResultSchema.safeParse(raw);
  if (!parsed.success) return;
  const input = ThumbnailStoredSchema.parse(job.input);
  const prefix = `${input.sourceType === "s3_direct" ? input.resolvedOutputPrefix : ""}${job.jobId}/`;
  const bucket = input.sourceType === "s3_direct" ? input.bucket : "";
  parsed.data.thumbnails.forEach((th, i) => {
    const path = `result.thumbnails.${i}`;
    requireJobsOwn(th.jobId, job.jobId, `${path}.jobId`);
    // Ids are unique in the transcript's set: another job's id would be skipped there as a duplicate.
    if (!th.thumbnailId.startsWith(`${job.jobId}-`))
      throw refused(`${path}.thumbnailId (${th.thumbnailId}) is not one of this job's (${job.jobId}-…)`, {
        path: `${path}.thumbnailId`,
        issue: "notTheJobs",
      });
    requireJobsOwn(th.bucket, bucket, `${path}.bucket`);
    requireOwnOutput(job, th.key, { prefix, outputName: th.kind === "cover" ? "cover" : "frames" }, `${path}.key`);
  });
};

const IMAGE_SIZES = {
  free: { allowedRatios: ["1:1", "3:2", "2:3"], resolution: 1024, default: DEFAULT_THUMBNAIL_SIZE.free },
  enterprise: {
    maxAspect: "3:1",
    maxEdge: 3840,
    minPixels: 655_360,
    maxPixels: 8_294_400,
    edgeMultiple: 16,
    default: DEFAULT_THUMBNAIL_SIZE.enterprise,
  },
};

export const thumbnailWorker = defineWorkerService<"thumbnail">({
  meter: "thumbnail_credits",
  quote: (input, s, plan) =>
    Math.min(input.options?.thumbnailCount ?? s.policy.thumbnail[plan === "enterprise" ? "enterprise" : "free"].defaultThumbnailCount, 3),
  resolve: resolveThumbnail,
  policy: (s) => {
    const free = {
      defaultThumbnailCount: s.policy.thumbnail.free.defaultThumbnailCount,
      maxNonAiThumbnailCount: s.policy.thumbnail.free.maxNonAiThumbnailCount,
      imageSize: IMAGE_SIZES.free,
      monthlyCredits: s.quotas.free.thumbnail_credits,
    };
    return {
      maxThumbnailCount: 3,
      imageEngine: s.thumbnails.imageEngine,
      plans: {
        free,
        // `pro` workspaces get the free plan's thumbnail policy until the spec gives pro its own; their credits are their own.
        pro: { ...free, monthlyCredits: s.quotas.pro.thumbnail_credits },
        enterprise: {
          defaultThumbnailCount: s.policy.thumbnail.enterprise.defaultThumbnailCount,
          maxNonAiThumbnailCount: s.policy.thumbnail.enterprise.maxNonAiThumbnailCount,
          imageSize: IMAGE_SIZES.enterprise,
          monthlyCredits: s.quotas.enterprise.thumbnail_credits,
        },
      },
    };
  },
  sinks: { "thumbnail.fetch_transcription": handOver, thumbnail: saveThumbnails },
  resultChecks: { thumbnail: checkThumbnails },
  runnerCalls: { [HANDOVER_TRANSCRIPT_CALL]: handoverTranscriptCall },
  workerSteps: { "thumbnail.fetch_transcription": fetchTranscription },
  runnerSettings: (s) => ({ ...runnerBase(s), thumbnails: s.thumbnails }),
  routes: { "/thumbnails": thumbnailRoutes },
});
