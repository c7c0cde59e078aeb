import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { clipGenerations, projects } from "../../db/schema";
import { validationError } from "../../errors";
import { displayNameOf } from "../../storage/object-keys";
import { requireClipSource } from "../../transcripts/lookup";
import { requireOutputUrlCounts, resolvePresigned, withRecord } from "../shared/presigned-input";
import { resolveVideoSource } from "../shared/video-source";
import type { CreateContext, Resolved } from "../types";

/**
 * A clip generation's create: the transcript (completed, with segments), the options against the
 * plan's policy (maxClips capped, layout, fill style, category override), the source (resolved from
 * the transcription's job when omitted; probes in shared/video-source.ts) or, for `s3_presigned`, the
 * URLs (each list as long as the effective maxClips). One credit per clip the job may make.
 */
export async function resolveClipGeneration(
  ctx: CreateContext,
  input: InputOf<"clip_generation">,
): Promise<Resolved<StoredInputOf<"clip_generation">>> {
  const { db, projectId, plan, settings } = ctx;
  const t = await requireClipSource(db, projectId, input.textSourceId);
  const policy = plan === "enterprise" ? settings.policy.clip_generation.enterprise : settings.policy.clip_generation.free;
  const o = input.options ?? {};
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
  const maxClips = Math.min(o.maxClips ?? policy.maxClipsDefault, policy.maxClipsCap);
  const options = {
    maxClips,
    ...(o.maxClips !== undefined && o.maxClips > maxClips ? { maxClipsRequested: o.maxClips, maxClipsCap: policy.maxClipsCap } : {}),
    layout: o.layout ?? null,
    allowAutoLayout: policy.allowAutoLayout,
    fillStyle: o.fillStyle ?? null,
    captions: o.captions ?? true,
    ...(o.categoryOverride ? { categoryOverride: o.categoryOverride } : {}),
    supportedCategories: policy.supportedCategories,
    supportedLayouts: policy.supportedLayouts,
    supportedFillStyles: policy.supportedFillStyles,
  };
  const project = await db.select({ branding: projects.branding }).from(projects).where(eq(projects.id, projectId)).get();
  const clipGenerationId = newId("clipGeneration");
  // Platform-managed toggles, stored read-only on the job (the spec's `options.analysis`).
  const analysis = { vision: settings.clips.vision, category: settings.clips.category };
  // The project's branding as it was at create: a later change does not alter a queued job.
  const branding = project?.branding ?? null;
  // An s3_presigned job has no prefix: its record shows "" (the URLs are on the job, redacted).
  const record = (outputPrefix: string) => ({
    statements: async (jobId: string, now: string) => [
      db.insert(clipGenerations).values({
        id: clipGenerationId,
        projectId,
        jobId,
        textSourceId: t.id,
        status: "pending",
        options,
        outputPrefix,
        result: null,
        createdAt: now,
        updatedAt: now,
      }),
    ],
    remove: async () => {
      await db.delete(clipGenerations).where(eq(clipGenerations.id, clipGenerationId));
    },
  });

  if (input.sourceType === "s3_presigned") {
    const count = { count: maxClips, limit: "the effective maxClips" };
    requireOutputUrlCounts(input.outputUrls, { video: count, poster: count });
    const presigned = resolvePresigned(ctx, input);
    return {
      input: { ...input, ...presigned.redacted, clipGenerationId, options, analysis, branding },
      sourceDisplayName: displayNameOf(presigned.sourcePath ?? ""),
      credits: maxClips,
      probe: presigned.probe,
      record: withRecord(presigned, record("")),
    };
  }
  const { source, prefix, probe } = await resolveVideoSource(db, ctx.env, projectId, input, t, "clips", ctx.settings.runner);
  return {
    input: {
      ...source,
      sourceType: "s3_direct",
      clipGenerationId,
      resolvedOutputPrefix: prefix,
      options,
      analysis,
      branding,
    },
    sourceDisplayName: displayNameOf(source.sourceKey),
    credits: maxClips,
    probe,
    record: record(prefix),
  };
}
