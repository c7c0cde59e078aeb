import sharp from "sharp";

/**
 * What the fake text-to-image models draw: a diagonal gradient whose colours come from the prompt
 * and seed, so different seeds (variants) give different images and a test can tell them apart.
 * Real models pick their own sizes; each fake answers at the size its API documents.
 */
export async function fakeImage(width: number, height: number, format: "jpeg" | "png" | "webp", seedText: string): Promise<Buffer> {
  let h = 2166136261;
  for (const ch of seedText) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
  const from = [h & 0xff, (h >>> 8) & 0xff, (h >>> 16) & 0xff];
  const to = from.map((c) => 255 - c);
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const t = (x / width + y / height) / 2;
      const i = (y * width + x) * 3;
      for (let c = 0; c < 3; c++) raw[i + c] = Math.round(from[c]! * (1 - t) + to[c]! * t);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}
