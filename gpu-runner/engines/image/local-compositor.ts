import { existsSync } from "node:fs";
import { basename, extname } from "node:path";
import { createCanvas, GlobalFonts, type SKRSContext2D } from "@napi-rs/canvas";
import type { Metadata } from "sharp";
import { openImage } from "../../media/images";
import { untilAborted } from "../../../contracts/retry";
import { StepFailure } from "../../../contracts/step-failure";
import { lineUnits } from "../../../contracts/text-words";
import type { EngineEnv } from "../config";
import type { Cover, CoverRequest, ImageEngine } from "./interface";
import { COVER_JPEG_QUALITY } from "./jpeg";

/**
 * The local cover: no model, a designed layout. It takes one of the candidate frames (the variant
 * picks which), crops it to the requested ratio keeping the faces in, and sets the title in Noto
 * Sans Bold on a dark scrim band at the top or bottom, whichever covers less of the faces. White on
 * the scrim keeps WCAG contrast above 4.5 whatever the frame shows beneath it.
 *
 * Environment: COMPOSITOR_FONT (default the Debian `fonts-noto-core` file below).
 */
export const DEFAULT_COMPOSITOR_FONT = "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf";
const FONT_FAMILY = "media-jobs cover title";

export interface CompositorConfig {
  fontPath: string;
}

export function compositorConfigFromEnv(env: EngineEnv): CompositorConfig {
  return { fontPath: env.COMPOSITOR_FONT || DEFAULT_COMPOSITOR_FONT };
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Scrim colours, one per variant in turn: all dark enough for white text (see MIN_CONTRAST). */
export const SCRIMS: readonly { name: string; rgb: readonly [number, number, number] }[] = [
  { name: "ink", rgb: [12, 16, 24] },
  { name: "plum", rgb: [44, 16, 52] },
  { name: "pine", rgb: [8, 40, 34] },
  { name: "navy", rgb: [10, 26, 60] },
];

/** WCAG AA for body text; titles are large, but the stricter figure costs nothing here. */
export const MIN_CONTRAST = 4.5;
const MAX_LINES = 3;

/** WCAG 2 relative luminance of an sRGB colour (0–255 channels). */
export function relativeLuminance([r, g, b]: readonly number[]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}

export function contrastRatio(a: readonly number[], b: readonly number[]): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The scrim's opacity under the text: the lowest (showing most of the frame) at which white text
 * still has MIN_CONTRAST when the frame beneath is pure white, the worst case.
 */
export function scrimAlpha(rgb: readonly number[]): number {
  for (let alpha = 0.7; alpha < 1; alpha += 0.02) {
    const over = rgb.map((c) => alpha * c + (1 - alpha) * 255);
    if (contrastRatio([255, 255, 255], over) >= MIN_CONTRAST) return Math.round(alpha * 100) / 100;
  }
  return 1;
}

/**
 * The largest crop of the target ratio, centred on the union of the faces (pixel boxes) and kept
 * inside the frame; no faces: the centre. When the faces are wider than any crop of that ratio, it
 * stays centred on them (`facesInside` false).
 */
export function faceAwareCrop(
  frame: { width: number; height: number },
  ratio: number,
  faces: readonly Box[],
): { crop: Box; facesInside: boolean } {
  const wide = frame.width / frame.height > ratio;
  const width = Math.min(frame.width, wide ? Math.round(frame.height * ratio) : frame.width);
  const height = Math.min(frame.height, wide ? frame.height : Math.round(frame.width / ratio));
  const union = unionBox(faces);
  const cx = union ? union.x + union.width / 2 : frame.width / 2;
  const cy = union ? union.y + union.height / 2 : frame.height / 2;
  const x = clamp(Math.round(cx - width / 2), 0, frame.width - width);
  const y = clamp(Math.round(cy - height / 2), 0, frame.height - height);
  const crop = { x, y, width, height };
  return { crop, facesInside: !union || contains(crop, union) };
}

export function unionBox(boxes: readonly Box[]): Box | null {
  if (boxes.length === 0) return null;
  const x0 = Math.min(...boxes.map((b) => b.x));
  const y0 = Math.min(...boxes.map((b) => b.y));
  const x1 = Math.max(...boxes.map((b) => b.x + b.width));
  const y1 = Math.max(...boxes.map((b) => b.y + b.height));
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function contains(outer: Box, inner: Box): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

function verticalOverlap(faces: readonly Box[], top: number, bottom: number): number {
  return faces.reduce((sum, f) => sum + f.width * Math.max(0, Math.min(bottom, f.y + f.height) - Math.max(top, f.y)), 0);
}

/**
 * Greedy word wrap to `maxWidth` (between words, which in Chinese, Japanese or Thai have no space
 * between them), at most MAX_LINES lines; returns null when the words need more lines (the caller
 * shrinks the type) unless `truncate`, which ends the last line with an ellipsis.
 */
function wrap(ctx: SKRSContext2D, text: string, maxWidth: number, truncate: boolean): string[] | null {
  const fits = (s: string) => ctx.measureText(s).width <= maxWidth;
  const lines: string[] = [];
  let line = "";
  for (const unit of lineUnits(text)) {
    const candidate = line ? `${line}${unit.spaceBefore ? " " : ""}${unit.text}` : unit.text;
    if (fits(candidate)) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = unit.text;
  }
  if (line) lines.push(line);
  const tooWide = lines.some((l) => !fits(l));
  if (lines.length <= MAX_LINES && !tooWide) return lines;
  if (!truncate) return null;
  const kept = lines.slice(0, MAX_LINES).map((l) => ellipsize(l, fits, false));
  if (lines.length > MAX_LINES) kept[MAX_LINES - 1] = ellipsize(kept[MAX_LINES - 1]!, fits, true);
  return kept;
}

/** Shortens a line until it fits; `always` adds the ellipsis even when it already fits (text was cut after it). */
function ellipsize(line: string, fits: (s: string) => boolean, always: boolean): string {
  if (!always && fits(line)) return line;
  let chars = [...line];
  while (chars.length > 0 && !fits(`${chars.join("").trimEnd()}…`)) chars = chars.slice(0, -1);
  return `${chars.join("").trimEnd()}…`;
}

export class LocalCompositorEngine implements ImageEngine {
  readonly engine = "local-compositor";
  readonly kind = "compositor";
  readonly model: string;

  constructor(private readonly config: CompositorConfig) {
    this.model = `compositor-1 (sharp + @napi-rs/canvas, ${basename(config.fontPath, extname(config.fontPath))})`;
  }

  generate(req: CoverRequest): Promise<Cover> {
    // sharp and canvas work cannot be stopped once started, but it is short and touches nothing outside memory: the task need not wait.
    return untilAborted(this.compose(req), req.signal);
  }

  private fail(message: string, retryable = true): StepFailure {
    return new StepFailure("processing_failed", `${this.engine} (${this.model}): ${message}`, retryable);
  }

  private registerFont(): void {
    if (GlobalFonts.has(FONT_FAMILY)) return;
    const missing = `the title font ${this.config.fontPath}`;
    if (!existsSync(this.config.fontPath))
      throw new StepFailure(
        "engine_unavailable",
        `${this.engine} (${this.model}): ${missing} is missing; install the Debian package fonts-noto-core (or set COMPOSITOR_FONT)`,
        true,
      );
    if (!GlobalFonts.registerFromPath(this.config.fontPath, FONT_FAMILY))
      throw new StepFailure("engine_unavailable", `${this.engine} (${this.model}): ${missing} cannot be loaded as a font`, true);
  }

  private async compose(req: CoverRequest): Promise<Cover> {
    req.signal.throwIfAborted();
    if (req.frames.length === 0) throw this.fail("no frames to compose a cover from", false);
    this.registerFont();
    const index = req.variant % req.frames.length;
    const frame = req.frames[index]!;
    let meta: Metadata;
    try {
      meta = await openImage(frame.path).metadata();
    } catch (err) {
      throw this.fail(`frame at ${frame.t}s cannot be read: ${(err as Error).message}`);
    }
    req.signal.throwIfAborted();
    const size = { width: meta.autoOrient?.width ?? meta.width ?? 0, height: meta.autoOrient?.height ?? meta.height ?? 0 };
    const faces = frame.faces.map((f) => ({
      x: f.x * size.width,
      y: f.y * size.height,
      width: f.width * size.width,
      height: f.height * size.height,
    }));
    const { crop, facesInside } = faceAwareCrop(size, req.width / req.height, faces);
    const scale = req.width / crop.width;
    const facesOut = faces.map((f) => ({
      x: (f.x - crop.x) * scale,
      y: (f.y - crop.y) * scale,
      width: f.width * scale,
      height: f.height * scale,
    }));

    const scrim = SCRIMS[req.variant % SCRIMS.length]!;
    const overlay = this.titleOverlay(req, facesOut, scrim);
    const jpeg = await openImage(frame.path)
      .autoOrient()
      .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
      .resize(req.width, req.height, { fit: "fill" })
      .composite(overlay ? [{ input: overlay.png }] : [])
      .jpeg({ quality: COVER_JPEG_QUALITY, mozjpeg: false })
      .toBuffer();
    return {
      jpeg: new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength),
      details: {
        frameTime: frame.t,
        frameIndex: index,
        crop,
        facesInside,
        band: overlay?.band ?? null,
      },
    };
  }

  /** The scrim band and title as a transparent PNG the size of the cover; null for an empty title. */
  private titleOverlay(
    req: CoverRequest,
    faces: readonly Box[],
    scrim: (typeof SCRIMS)[number],
  ): { png: Buffer; band: Record<string, unknown> } | null {
    const title = req.title.replace(/\s+/g, " ").trim();
    if (!title) return null;
    const { width: W, height: H } = req;
    const canvas = createCanvas(W, H);
    const ctx = canvas.getContext("2d");
    const short = Math.min(W, H);
    const maxWidth = W * 0.88;
    // The largest size (8.5% of the short side) at which the title fits in three lines, down to 5%.
    let fontSize = Math.round(short * 0.085);
    const minSize = Math.round(short * 0.05);
    let lines: string[] | null = null;
    for (;;) {
      ctx.font = `${fontSize}px "${FONT_FAMILY}"`;
      lines = wrap(ctx, title, maxWidth, fontSize <= minSize);
      if (lines) break;
      fontSize = Math.max(minSize, Math.round(fontSize * 0.9));
    }
    const lineHeight = Math.round(fontSize * 1.22);
    const pad = Math.round(fontSize * 0.6);
    const bandHeight = lines.length * lineHeight + 2 * pad;
    const fade = Math.round(bandHeight * 0.6);

    const overlapTop = verticalOverlap(faces, 0, bandHeight + fade);
    const overlapBottom = verticalOverlap(faces, H - bandHeight - fade, H);
    // Even variants prefer the bottom, odd ones the top, when the faces do not decide.
    const position: "top" | "bottom" =
      overlapTop < overlapBottom ? "top" : overlapBottom < overlapTop ? "bottom" : req.variant % 2 === 0 ? "bottom" : "top";
    const bandTop = position === "top" ? 0 : H - bandHeight;

    const alpha = scrimAlpha(scrim.rgb);
    const rgba = (a: number) => `rgba(${scrim.rgb.join(", ")}, ${a})`;
    const gradient =
      position === "top" ? ctx.createLinearGradient(0, bandHeight + fade, 0, 0) : ctx.createLinearGradient(0, H - bandHeight - fade, 0, H);
    gradient.addColorStop(0, rgba(0));
    gradient.addColorStop(fade / (bandHeight + fade), rgba(alpha));
    gradient.addColorStop(1, rgba(alpha));
    ctx.fillStyle = gradient;
    if (position === "top") ctx.fillRect(0, 0, W, bandHeight + fade);
    else ctx.fillRect(0, H - bandHeight - fade, W, bandHeight + fade);

    ctx.fillStyle = "#ffffff";
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    lines.forEach((line, i) => ctx.fillText(line, W / 2, bandTop + pad + lineHeight * (i + 0.5)));

    const worstBeneath = scrim.rgb.map((c) => alpha * c + (1 - alpha) * 255);
    return {
      png: canvas.toBuffer("image/png"),
      band: {
        position,
        y: bandTop,
        height: bandHeight,
        colour: scrim.name,
        scrimAlpha: alpha,
        fontSize,
        lines,
        contrast: Math.round(contrastRatio([255, 255, 255], scrim.rgb) * 100) / 100,
        worstCaseContrast: Math.round(contrastRatio([255, 255, 255], worstBeneath) * 100) / 100,
      },
    };
  }
}
