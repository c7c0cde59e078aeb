import { validationError } from "../errors";
import { checkedSource, requireClipSource } from "../jobs/references";
import { defineWorkerService, runnerBase } from "./types";

/** Clip generation: short MP4s from a video and its transcript (pipeline not built yet). */
export const clipGenerationWorker = defineWorkerService<"clip_generation">({
  meter: "clip_credits",
  resolve: async ({ db, projectId, plan, settings }, input) => {
    const t = await requireClipSource(db, projectId, input.textSourceId);
    const policy = plan === "enterprise" ? settings.policy.clip_generation.enterprise : settings.policy.clip_generation.free;
    const o = input.options ?? {};
    const maxClips = Math.min(o.maxClips ?? policy.maxClipsDefault, policy.maxClipsCap);
    if (o.layout && !policy.supportedLayouts.includes(o.layout))
      throw validationError(`layout ${o.layout} is not supported (${policy.supportedLayouts.join(", ")})`, [
        { path: "input.options.layout", issue: "unsupportedLayout" },
      ]);
    if (o.fillStyle && !policy.supportedFillStyles.includes(o.fillStyle))
      throw validationError(`fillStyle ${o.fillStyle} is not supported`, [
        { path: "input.options.fillStyle", issue: "unsupportedFillStyle" },
      ]);
    if (o.categoryOverride && (!policy.allowCategoryOverride || !policy.supportedCategories.includes(o.categoryOverride))) {
      throw validationError(
        `categoryOverride ${o.categoryOverride} is not allowed (${policy.allowCategoryOverride ? policy.supportedCategories.join(", ") : "overrides are disabled"})`,
        [{ path: "input.options.categoryOverride", issue: "unsupportedCategory" }],
      );
    }
    // One credit per clip the job may make (`maxClips` after the plan's cap).
    return {
      input: { ...(await checkedSource(db, projectId, input, t)), options: { ...o, maxClips }, analysis: { vision: true, category: true } },
      credits: maxClips,
    };
  },
  policy: (s) => ({ plans: s.policy.clip_generation }),
  sinks: {},
  runnerSettings: runnerBase,
});
