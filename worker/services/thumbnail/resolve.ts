import { redactUrl } from "../../../contracts/presigned";
import type { InputOf, StoredInputOf } from "../../../contracts/services/index";
import { displayNameOf } from "../../storage/object-keys";
import { requireClipSource } from "../../transcripts/lookup";
import { thumbnailSize } from "./size";
import { requireOutputUrlCounts, resolvePresigned } from "../shared/presigned-input";
import { resolveVideoSource } from "../shared/video-source";
import type { CreateContext, Resolved } from "../types";

/** The size when the request sends no ratio and resolution: each plan's model's most useful shape. */
export const DEFAULT_THUMBNAIL_SIZE = {
  // 3:2 at 1024, the free model's widest.
  free: { ratioWidth: 3, ratioHeight: 2, resolution: 1024 },
  // 16:9 at 1080: a video platform's cover.
  enterprise: { ratioWidth: 16, ratioHeight: 9, resolution: 1080 },
} as const;

/**
 * A thumbnail job's create: the transcript (completed, with segments), the counts against the
 * plan's policy, the image size by the plan's model rules, the source (resolved from the
 * transcription's job when omitted) and the output prefix, probed after the quota check; or, for
 * `s3_presigned`, the URLs (a list per kind as long as its count). One credit per cover; frame picks are free.
 */
export async function resolveThumbnail(ctx: CreateContext, input: InputOf<"thumbnail">): Promise<Resolved<StoredInputOf<"thumbnail">>> {
  const { db, projectId, plan, settings } = ctx;
  const t = await requireClipSource(db, projectId, input.textSourceId);
  const policy = plan === "enterprise" ? settings.policy.thumbnail.enterprise : settings.policy.thumbnail.free;
  const o = input.options ?? {};
  const shape =
    o.ratioWidth !== undefined && o.ratioHeight !== undefined && o.resolution !== undefined
      ? { ratioWidth: o.ratioWidth, ratioHeight: o.ratioHeight, resolution: o.resolution }
      : DEFAULT_THUMBNAIL_SIZE[plan === "enterprise" ? "enterprise" : "free"];
  const size = thumbnailSize(plan, shape.ratioWidth, shape.ratioHeight, shape.resolution);
  const thumbnailCount = Math.min(o.thumbnailCount ?? policy.defaultThumbnailCount, 3);
  const nonAiThumbnailCount = Math.min(o.nonAiThumbnailCount ?? policy.maxNonAiThumbnailCount, 5);
  const options = { ...shape, thumbnailCount, nonAiThumbnailCount };
  // The plan's model (platform-managed, read-only on the job); null: the engine's default.
  const imageModel = policy.imageModel;

  if (input.sourceType === "s3_presigned") {
    requireOutputUrlCounts(input.outputUrls, {
      cover: { count: thumbnailCount, limit: "thumbnailCount" },
      frames: { count: nonAiThumbnailCount, limit: "nonAiThumbnailCount" },
    });
    const presigned = resolvePresigned(ctx, input);
    // Redacted as resolvePresigned redacts them, list by list, so the stored lists keep their kinds' names.
    const outputUrls = { cover: input.outputUrls.cover.map(redactUrl), frames: input.outputUrls.frames.map(redactUrl) };
    return {
      input: { ...input, sourceUrl: redactUrl(input.sourceUrl), outputUrls, options, size, imageModel },
      sourceDisplayName: displayNameOf(presigned.sourcePath ?? ""),
      credits: thumbnailCount,
      probe: presigned.probe,
      record: presigned.record,
    };
  }
  const { source, prefix, probe } = await resolveVideoSource(db, ctx.env, projectId, input, t, "thumbnails", ctx.settings.runner);
  return {
    input: {
      ...source,
      sourceType: "s3_direct",
      resolvedOutputPrefix: prefix,
      options,
      size,
      imageModel,
    },
    sourceDisplayName: displayNameOf(source.sourceKey),
    credits: thumbnailCount,
    probe,
  };
}
