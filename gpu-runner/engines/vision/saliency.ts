import { openImage } from "../../media/images";
import type { Box } from "./interface";

/**
 * A detector-free guess at where the eye goes: the window (same aspect as the frame) holding the
 * most edge energy. It runs on every sampled frame beside the detectors, so it works on a small
 * greyscale copy. The copy is not tiny: at 64 px wide a fine texture (fabric, foliage, text) averages
 * to flat grey before any gradient is taken, so gradients are taken at 256 px and summed per window.
 */

/** Already-decoded pixels, so a caller that decoded the frame for a model does not decode it twice. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 2 | 3 | 4;
}

export interface SaliencyOptions {
  /** Width of the analysed copy; 256 px keeps the search to about a millisecond. */
  analysisWidth?: number;
  /** Window size as a fraction of the frame (both sides, so the window keeps the frame's aspect). */
  windowFraction?: number;
  /**
   * Mean gradient per pixel (0..255 scale) below which the frame counts as featureless: the region
   * would be chosen by noise, so there is none.
   */
  minMeanEnergy?: number;
}

const DEFAULTS: Required<SaliencyOptions> = { analysisWidth: 256, windowFraction: 0.5, minMeanEnergy: 1 };

export async function salientRegion(input: string | RawImage, opts: SaliencyOptions = {}): Promise<Box | null> {
  const { analysisWidth, windowFraction, minMeanEnergy } = { ...DEFAULTS, ...opts };
  const img =
    typeof input === "string"
      ? openImage(input)
      : openImage(input.data, { raw: { width: input.width, height: input.height, channels: input.channels } });
  const { data, info } = await img
    .greyscale()
    .resize({ width: analysisWidth, kernel: "linear" })
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return salientRegionOfGrey(data, info.width, info.height, info.channels, windowFraction, minMeanEnergy);
}

/** The search itself, on a greyscale buffer (first channel of each pixel is used). Exported for tests. */
export function salientRegionOfGrey(
  grey: Uint8Array,
  width: number,
  height: number,
  channels: number,
  windowFraction = DEFAULTS.windowFraction,
  minMeanEnergy = DEFAULTS.minMeanEnergy,
): Box | null {
  if (width < 3 || height < 3) return null;
  const at = (x: number, y: number) => grey[(y * width + x) * channels] ?? 0;
  // Summed-area table of gradient magnitude, one extra row and column of zeros so sums need no bounds checks.
  const stride = width + 1;
  const sat = new Float64Array(stride * (height + 1));
  for (let y = 0; y < height; y++) {
    let row = 0;
    for (let x = 0; x < width; x++) {
      // Central differences; edge pixels get none so the frame border itself is never an "edge".
      const e =
        x > 0 && x < width - 1 && y > 0 && y < height - 1
          ? Math.abs(at(x + 1, y) - at(x - 1, y)) + Math.abs(at(x, y + 1) - at(x, y - 1))
          : 0;
      row += e;
      sat[(y + 1) * stride + x + 1] = (sat[y * stride + x + 1] ?? 0) + row;
    }
  }
  const total = sat[height * stride + width] ?? 0;
  if (total / (width * height) < minMeanEnergy) return null;

  const ww = Math.max(1, Math.round(width * windowFraction));
  const wh = Math.max(1, Math.round(height * windowFraction));
  const sum = (x: number, y: number) =>
    (sat[(y + wh) * stride + x + ww] ?? 0) -
    (sat[y * stride + x + ww] ?? 0) -
    (sat[(y + wh) * stride + x] ?? 0) +
    (sat[y * stride + x] ?? 0);
  const cx = (width - ww) / 2;
  const cy = (height - wh) / 2;
  let best = { x: Math.round(cx), y: Math.round(cy), energy: -1, off: Infinity };
  for (let y = 0; y + wh <= height; y++) {
    for (let x = 0; x + ww <= width; x++) {
      const energy = sum(x, y);
      // Ties (uniform texture) go to the window nearest the centre, the neutral crop.
      const off = (x - cx) ** 2 + (y - cy) ** 2;
      if (energy > best.energy + 1e-9 || (Math.abs(energy - best.energy) <= 1e-9 && off < best.off)) best = { x, y, energy, off };
    }
  }
  return { x: best.x / width, y: best.y / height, width: ww / width, height: wh / height };
}
