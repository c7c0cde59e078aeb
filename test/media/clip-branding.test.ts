import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { LAYOUT_SIZE } from "../../contracts/clips";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { letterbox, logoBox, renderClip, type RenderJob } from "../../gpu-runner/services/clip-generation/render";
import type { AcceptedSource } from "../../gpu-runner/media/source";
import { acceptedVideo, faceVideo } from "../support/media-fixtures";

/**
 * The `branding` fill on real media: the project's colour behind the picture and its logo centred
 * in the band above it, read back from a frame of the rendered clip.
 */

let dir: string;
let source: AcceptedSource;
const BRAND = { hex: "#1e90ff", rgb: [30, 144, 255] };

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "branding-"));
  source = await acceptedVideo(await faceVideo("moving"));
}, 180_000);

async function render(logo: RenderJob["logo"]): Promise<{ frame: Buffer; width: number }> {
  const output = path.join(dir, `clip-${logo ? "logo" : "plain"}.mp4`);
  const probe = { srcW: 1280, srcH: 720 };
  await renderClip({
    source,
    output,
    start: 2,
    durationSec: 2,
    layout: "horizontal_in_vertical",
    fillStyle: "branding",
    ...probe,
    crop: null,
    cropW: 0,
    cropH: 0,
    assPath: null,
    loudness: null,
    hasAudio: true,
    brandColor: BRAND.hex,
    logo,
    fps: 30,
    preset: "ultrafast",
    crf: 23,
    signal: AbortSignal.timeout(60_000),
  });
  const png = path.join(dir, `frame-${logo ? "logo" : "plain"}.png`);
  await runToolOk("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-ss", "1", ...INPUT_GUARD, "-i", output, "-frames:v", "1", png]);
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  return { frame: data, width: info.width };
}

const pixel = (r: { frame: Buffer; width: number }, x: number, y: number) => {
  const i = (y * r.width + x) * 3;
  return [r.frame[i]!, r.frame[i + 1]!, r.frame[i + 2]!];
};
const near = (a: number[], b: number[], tol = 24) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

describe("branding fill", () => {
  it("paints the project's colour around the picture", async () => {
    const r = await render(null);
    const { height } = LAYOUT_SIZE.horizontal_in_vertical;
    expect(near(pixel(r, 40, 40), BRAND.rgb)).toBe(true);
    expect(near(pixel(r, 40, height - 40), BRAND.rgb)).toBe(true);
  }, 60_000);

  it("centres the logo in the band above the picture", async () => {
    const box = logoBox(1280, 720);
    const logoPath = path.join(dir, "logo.png");
    const w = Math.min(300, box.maxWidth);
    const h = Math.min(120, box.maxHeight);
    await sharp({ create: { width: w, height: h, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } } })
      .png()
      .toFile(logoPath);
    const r = await render({ path: logoPath, width: w, height: h });
    const { width } = LAYOUT_SIZE.horizontal_in_vertical;
    const bandY = letterbox(1280, 720).y;
    const centre = pixel(r, width / 2, Math.round(bandY / 2));
    expect(near(centre, [255, 0, 0], 40)).toBe(true);
    // Outside the logo, still the brand colour.
    expect(near(pixel(r, 20, Math.round(bandY / 2)), BRAND.rgb)).toBe(true);
  }, 60_000);
});
