import sharp from "sharp";

/**
 * How many pixels of two same-size images differ by more than a quarter of the range in some
 * channel: a count that ignores JPEG noise and sees any drawn shape (a glyph, a logo) that differs.
 */
export async function pixelsApart(a: string | Uint8Array, b: string | Uint8Array): Promise<number> {
  const [x, y] = await Promise.all([a, b].map((img) => sharp(img).removeAlpha().raw().toBuffer({ resolveWithObject: true })));
  if (x!.info.width !== y!.info.width || x!.info.height !== y!.info.height) throw new Error("pixelsApart: the images differ in size");
  const channels = x!.info.channels;
  let n = 0;
  for (let i = 0; i < x!.data.length; i += channels) {
    for (let c = 0; c < channels; c++)
      if (Math.abs(x!.data[i + c]! - y!.data[i + c]!) > 64) {
        n++;
        break;
      }
  }
  return n;
}
