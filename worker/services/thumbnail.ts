import { Hono } from "hono";
import { projectOf, requireAuth } from "../auth/middleware";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { ok } from "../http/envelope";
import { checkedSource, checkThumbnailSize, requireClipSource } from "../jobs/references";
import { PLAN_LIMITS } from "../jobs/credits";
import { ownedTranscript } from "../transcripts/store";
import { defineWorkerService, runnerBase } from "./types";

/** Thumbnails: cover JPEGs for a transcribed video, stored on the transcript (pipeline not built yet). */

const thumbnailRoutes = new Hono<AppBindings>().get("/:transcriptionId", async (c) => {
  const p = requireAuth(c, { key: "project", permission: "transcript:read" });
  const t = await ownedTranscript(getDb(c.env.DB), projectOf(p), c.req.param("transcriptionId"));
  return ok(c, { transcriptionId: t.id, thumbnails: t.thumbnails });
});

const IMAGE_SIZES = {
  free: { allowedRatios: ["1:1", "3:2", "2:3"], resolution: 1024 },
  enterprise: { maxAspect: "3:1", maxEdge: 3840, minPixels: 655_360, maxPixels: 8_294_400, edgeMultiple: 16 },
};

export const thumbnailWorker = defineWorkerService<"thumbnail">({
  meter: "thumbnail_credits",
  resolve: async ({ db, projectId, plan, settings }, input) => {
    const t = await requireClipSource(db, projectId, input.textSourceId);
    const policy = plan === "enterprise" ? settings.policy.thumbnail.enterprise : settings.policy.thumbnail.free;
    const o = input.options ?? {};
    if (o.ratioWidth !== undefined && o.ratioHeight !== undefined && o.resolution !== undefined)
      checkThumbnailSize(plan, o.ratioWidth, o.ratioHeight, o.resolution);
    const thumbnailCount = Math.min(o.thumbnailCount ?? policy.defaultThumbnailCount, 3);
    // One credit per AI variant.
    return {
      input: {
        ...(await checkedSource(db, projectId, input, t)),
        options: { ...o, thumbnailCount, nonAiThumbnailCount: o.nonAiThumbnailCount ?? policy.maxNonAiThumbnailCount },
      },
      credits: thumbnailCount,
    };
  },
  policy: (s) => ({
    maxThumbnailCount: 3,
    plans: {
      free: {
        defaultThumbnailCount: s.policy.thumbnail.free.defaultThumbnailCount,
        maxNonAiThumbnailCount: s.policy.thumbnail.free.maxNonAiThumbnailCount,
        imageSize: IMAGE_SIZES.free,
        monthlyCredits: PLAN_LIMITS.free["thumbnail_credits"] ?? null,
      },
      enterprise: {
        defaultThumbnailCount: s.policy.thumbnail.enterprise.defaultThumbnailCount,
        maxNonAiThumbnailCount: s.policy.thumbnail.enterprise.maxNonAiThumbnailCount,
        imageSize: IMAGE_SIZES.enterprise,
        monthlyCredits: null,
      },
    },
  }),
  sinks: {},
  runnerSettings: runnerBase,
  routes: { "/thumbnails": thumbnailRoutes },
});
