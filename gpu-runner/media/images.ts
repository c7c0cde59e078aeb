import sharp, { type Sharp, type SharpOptions } from "sharp";
import { maxInputPixels } from "../task-scope";

/**
 * Every image the runner decodes with sharp (stills, covers, logos, hosted engines' pictures) opens
 * here, with the running task's picture bound (`runner.maxPixels`) as sharp's `limitInputPixels`:
 * an image larger than any source the runner accepts is refused before it is decoded (sharp's own
 * default would allow about 268 megapixels).
 */
export function openImage(input?: Parameters<typeof sharp>[0], opts: SharpOptions = {}): Sharp {
  return sharp(input, { limitInputPixels: maxInputPixels(), ...opts });
}
