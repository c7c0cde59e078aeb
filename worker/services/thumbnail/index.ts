import { Hono } from "hono";
import { ThumbnailResultSchema, type Thumbnail } from "../../../contracts/thumbnails";
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
import { reportedKeysRefusal } from "../../storage/object-keys";

/**
 * Thumbnails, the Worker's side: create checks (resolve.ts), the transcript hand-over, and the set
 * on the transcript that every run adds to (`transcripts.thumbnails`), served by
 * `GET /v1/thumbnails/{transcriptionId}`.
 */

const counts = (set: readonly unknown[]) => {
  const kinds = set.map((x) => (x && typeof x === "object" ? (x as { kind?: unknown }).kind : undefined));
  return { thumbnailCount: kinds.filter((k) => k === "cover").length, frameCount: kinds.filter((k) => k === "frame").length };
};

const thumbnailRoutes = new Hono<AppBindings>().get("/:transcriptionId", async (c) => {
  const p = principalOf(c);
  const t = await ownedTranscript(getDb(c.env.DB), projectOf(p), c.req.param("transcriptionId"));
  return ok(c, { transcriptionId: t.id, ...counts(t.thumbnails), thumbnails: t.thumbnails });
});

/**
 * Adds the run's thumbnails to the transcript's set. Each entry is appended by its own statement
 * that does nothing when an entry with its id is already there, all in one batch: a redelivered
 * result adds nothing, and two jobs finishing at once both land (no read-modify-write).
 */
const saveThumbnails = validatedSink(ThumbnailResultSchema, "thumbnail", async ({ env, job }, r) => {
  const refused = reportedKeysRefusal(
    "thumbnail",
    r.thumbnails.map((th, i) => [`thumbnails.${i}.key`, th.key] as const),
  );
  if (refused) return { ok: false, error: refused };
  const { textSourceId } = ThumbnailStoredSchema.parse(job.input);
  const append = env.DB.prepare(
    `UPDATE transcripts SET thumbnails = json_insert(thumbnails, '$[#]', json(?1))
     WHERE id = ?2 AND NOT EXISTS (SELECT 1 FROM json_each(transcripts.thumbnails) WHERE json_extract(value, '$.thumbnailId') = ?3)`,
  );
  const read = env.DB.prepare("SELECT thumbnails FROM transcripts WHERE id = ?");
  const results = await env.DB.batch([
    ...r.thumbnails.map((th: Thumbnail) => append.bind(JSON.stringify(th), textSourceId, th.thumbnailId)),
    read.bind(textSourceId),
  ]);
  const row = results.at(-1)?.results?.[0] as { thumbnails?: string } | undefined;
  const set = JSON.parse(row?.thumbnails ?? "[]") as unknown[];
  const covers = r.thumbnails.filter((t) => t.kind === "cover");
  return {
    ok: true,
    summary: {
      textSourceId,
      thumbnailCount: counts(set).thumbnailCount,
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
