import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BRAND_LOGO_CALL, BrandLogoHandoverSchema, MAX_LOGO_BYTES } from "../../../contracts/branding";
import type { OutputsOf } from "../../../contracts/services/index";
import type { HandlerContext } from "../../handler";
import { openImage } from "../../media/images";
import { downloadObject } from "../../objects";

export type BrandLogo = { path: string; width: number; height: number };

/**
 * The brand logo as a PNG scaled to fit its band: a bucket job's was handed over as a scratch object
 * (`logoKey`); an `s3_presigned` job, which has no bucket, reads it with the runner call
 * `clip_generation.logo`. Null when there is none to draw; a note when one was set but left out,
 * or cannot be decoded (the colour still brands the clip: a bad logo never fails the render).
 */
export async function prepareLogo(
  ctx: Pick<HandlerContext<string, unknown, OutputsOf<"clip_generation">>, "outputs" | "openStorage" | "signal" | "task" | "platform">,
  bucket: string,
  dir: string,
  box: { maxWidth: number; maxHeight: number },
): Promise<BrandLogo | { note: string } | null> {
  await mkdir(dir, { recursive: true });
  const original = join(dir, "logo-original");
  const logoKey = ctx.outputs.fetch_transcription?.logoKey;
  if (logoKey !== undefined)
    await downloadObject(await ctx.openStorage(), bucket, logoKey, original, ctx.signal, {
      maxBytes: MAX_LOGO_BYTES,
      minFreeDiskBytes: 0,
      setting: "the brand logo's limit",
    });
  else if (ctx.task.presigned) {
    const handed = await ctx.platform.call(BRAND_LOGO_CALL, {}, BrandLogoHandoverSchema);
    if (!handed.logo) return handed.note ? { note: handed.note } : null;
    await writeFile(original, Buffer.from(handed.logo.data, "base64"));
  } else return null;
  const path = join(dir, "logo.png");
  try {
    const info = await openImage(original).resize({ width: box.maxWidth, height: box.maxHeight, fit: "inside" }).png().toFile(path);
    return { path, width: info.width, height: info.height };
  } catch (err) {
    return { note: `left out: the logo is not an image (${err instanceof Error ? err.message : String(err)})` };
  }
}
