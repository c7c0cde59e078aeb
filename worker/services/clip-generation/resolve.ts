import { eq } from "drizzle-orm";
import { newId } from "../../../contracts/ids";
import type { InputOf } from "../../../contracts/services/index";
import { S3Client, S3Error } from "../../../contracts/s3-client";
import { clipGenerations } from "../../db/schema";
import { validationError } from "../../errors";
import { checkedSource, displayNameOf, requireClipSource, requireUsableConnection } from "../../jobs/references";
import { connectionLocation } from "../../storage/connections";
import type { CreateContext, Resolved } from "../types";

/**
 * A clip generation's create: the transcript (completed, with segments), the options against the
 * plan's policy (maxClips capped, layout, fill style, category override), the source (resolved from
 * the transcription's job when omitted), then, after the quota check, a ranged GET of the source
 * and a write check of the output prefix. One credit per clip the job may make.
 */
export async function resolveClipGeneration(ctx: CreateContext, input: InputOf<"clip_generation">): Promise<Resolved> {
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
  const source = await checkedSource(db, projectId, input, t);
  if (!source.connectionId || !source.bucket || !source.sourceKey)
    throw validationError("the transcription has no source video; send connectionId, bucket and sourceKey", [
      { path: "input.sourceKey", issue: "required" },
    ]);
  const conn = await requireUsableConnection(db, projectId, source.connectionId, source.bucket);

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
  };
  const clipGenerationId = newId("clipGeneration");
  const prefix = input.outputPrefix
    ? input.outputPrefix.replace(/\/?$/, "/")
    : `${conn.defaultOutputPrefix.replace(/\/$/, "")}/${t.id}/clips/`;
  const bucket = source.bucket;
  const sourceKey = source.sourceKey;

  const probe = async () => {
    const s3 = new S3Client(await connectionLocation(conn, ctx.env.ENCRYPTION_KEY), 10_000);
    try {
      await s3.probeObject(bucket, sourceKey, 1024);
    } catch (err) {
      const missing = err instanceof S3Error && (err.status === 404 || err.s3Code === "NoSuchKey");
      throw validationError(
        missing
          ? `source object not found: s3://${bucket}/${sourceKey}`
          : `source object could not be read: ${err instanceof Error ? err.message : String(err)}`,
        [{ path: "input.sourceKey", issue: missing ? "sourceNotFound" : "sourceUnreadable" }],
      );
    }
    // The clip keys are not known before the moments are picked: check the prefix takes a write.
    const checkKey = `${prefix}.media-jobs-write-check`;
    try {
      await s3.putObject(bucket, checkKey, new Uint8Array(0), "application/octet-stream", 0);
      await s3.deleteObject(bucket, checkKey);
    } catch (err) {
      throw validationError(
        `output prefix is not writable: s3://${bucket}/${prefix} (${err instanceof Error ? err.message : String(err)})`,
        [{ path: input.outputPrefix ? "input.outputPrefix" : "input.bucket", issue: "outputNotWritable" }],
      );
    }
  };

  return {
    input: {
      ...source,
      clipGenerationId,
      resolvedOutputPrefix: prefix,
      options,
      // Platform-managed toggles, stored read-only on the job (the spec's `options.analysis`).
      analysis: { vision: settings.clips.vision, category: settings.clips.category },
    },
    sourceDisplayName: displayNameOf(sourceKey),
    credits: maxClips,
    probe,
    record: {
      insert: async (jobId, now) => {
        await db.insert(clipGenerations).values({
          id: clipGenerationId,
          projectId,
          jobId,
          textSourceId: t.id,
          status: "pending",
          options,
          outputPrefix: prefix,
          result: null,
          createdAt: now,
          updatedAt: now,
        });
      },
      remove: async () => {
        await db.delete(clipGenerations).where(eq(clipGenerations.id, clipGenerationId));
      },
    },
  };
}
