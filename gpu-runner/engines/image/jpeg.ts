import type { Metadata } from "sharp";
import { openImage } from "../../media/images";
import { untilAborted } from "../../../contracts/retry";
import type { StepFailure } from "../../../contracts/step-failure";

/**
 * What every image engine hands back: JPEG at exactly the size asked for. Hosted models generate at
 * sizes of their own (flux-1-schnell on Workers AI always 1024×1024, Replicate at aspect ratios,
 * OpenAI at a few fixed sizes), so their output is scaled to cover the requested frame and
 * centre-cropped, then re-encoded once.
 */
export const COVER_JPEG_QUALITY = 90;

/** The longest image we accept from a model: a cover is a few megabytes at most. */
export const MAX_IMAGE_BYTES = 40 * 1024 * 1024;

export interface ExactJpeg {
  jpeg: Uint8Array;
  /** The model's own output size and format, for the record. */
  source: { width: number; height: number; format: string };
}

/** `fail` builds the error for an image that cannot be decoded (the engine's client names engine and model). */
export async function exactJpeg(
  image: Uint8Array,
  size: { width: number; height: number },
  signal: AbortSignal,
  fail: (message: string) => StepFailure,
): Promise<ExactJpeg> {
  if (image.byteLength === 0) throw fail("answered an empty image");
  if (image.byteLength > MAX_IMAGE_BYTES) throw fail(`answered an image of ${image.byteLength} bytes, more than ${MAX_IMAGE_BYTES}`);
  let meta: Metadata;
  try {
    meta = await openImage(image).metadata();
  } catch (err) {
    throw fail(`answered an image that cannot be decoded: ${(err as Error).message}`);
  }
  signal.throwIfAborted();
  // sharp's work cannot be stopped once started, but it is short and touches nothing outside memory: the task need not wait.
  const jpeg = await untilAborted(
    openImage(image)
      .autoOrient()
      .resize(size.width, size.height, { fit: "cover", position: "centre" })
      .jpeg({ quality: COVER_JPEG_QUALITY, mozjpeg: false })
      .toBuffer(),
    signal,
  );
  return {
    jpeg: new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength),
    source: {
      width: meta.autoOrient?.width ?? meta.width ?? 0,
      height: meta.autoOrient?.height ?? meta.height ?? 0,
      format: meta.format ?? "unknown",
    },
  };
}
