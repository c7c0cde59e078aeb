import { Hono } from "hono";
import { z } from "zod";
import { getDb } from "../db/client";
import type { AppBindings } from "../env";
import { ok } from "../http/envelope";
import { queryWith } from "../http/validate";
import { loadSettings } from "../platform/settings";
import { PLAN_LIMITS } from "../jobs/credits";

const PolicyQuery = z.object({
  serviceType: z.enum(["clip_generation", "transcription", "thumbnail", "translation"], {
    message: "serviceType must be one of clip_generation, transcription, thumbnail, translation",
  }),
});

/** GET /v1/jobs/policy — no authentication; payloads come from platform settings. */
export const policyRoutes = new Hono<AppBindings>().get("/", async (c) => {
  const { serviceType } = queryWith(c, PolicyQuery);
  const s = await loadSettings(getDb(c.env.DB));
  switch (serviceType) {
    case "clip_generation":
      return ok(c, { serviceType, plans: s.policy.clip_generation });
    case "thumbnail": {
      const sizes = {
        free: { allowedRatios: ["1:1", "3:2", "2:3"], resolution: 1024 },
        enterprise: { maxAspect: "3:1", maxEdge: 3840, minPixels: 655_360, maxPixels: 8_294_400, edgeMultiple: 16 },
      };
      return ok(c, {
        serviceType,
        maxThumbnailCount: 3,
        plans: {
          free: { defaultThumbnailCount: s.policy.thumbnail.free.defaultThumbnailCount, maxNonAiThumbnailCount: s.policy.thumbnail.free.maxNonAiThumbnailCount, imageSize: sizes.free, monthlyCredits: PLAN_LIMITS.free["thumbnail_credits"] ?? null },
          enterprise: { defaultThumbnailCount: s.policy.thumbnail.enterprise.defaultThumbnailCount, maxNonAiThumbnailCount: s.policy.thumbnail.enterprise.maxNonAiThumbnailCount, imageSize: sizes.enterprise, monthlyCredits: null },
        },
      });
    }
    case "transcription":
      return ok(c, {
        serviceType,
        maxDurationSec: s.transcription.maxDurationSec,
        supportedSourceLanguages: s.transcription.supportedSourceLanguages,
        supportedExtensions: s.transcription.allowedExtensions,
        speechEngine: s.transcription.speechEngine,
        plans: { free: { monthlyJobs: PLAN_LIMITS.free["transcription_jobs"] ?? null }, enterprise: { monthlyJobs: null } },
      });
    case "translation":
      return ok(c, {
        serviceType,
        supportedTargetLanguages: s.policy.translation.supportedTargetLanguages,
        backend: s.policy.translation.backend,
        plans: { free: { monthlyJobs: null }, enterprise: { monthlyJobs: null } },
      });
  }
});
