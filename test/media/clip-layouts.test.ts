import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ClipGenerationResultSchema, LAYOUT_SIZE, type ClipGenerationResult, type ClipLayout, type FillStyle } from "../../contracts/clips";
import { renderClipsStep } from "../../contracts/services/clip-generation";
import { stepSpec } from "../../contracts/services/types";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { createClipGenerationHandler, type ClipHandlerDeps } from "../../gpu-runner/services/clip-generation/handler";
import { LOUDNESS, measureLoudness } from "../../gpu-runner/services/clip-generation/media";
import type { CropPiece } from "../../gpu-runner/services/clip-generation/reframe";
import { cropSize, letterbox, renderClip } from "../../gpu-runner/services/clip-generation/render";
import { startLocalS3, type LocalS3 } from "../../scripts/lib/local-s3";
import { clipContext } from "../support/clip-context";
import { localS3Client, makeHandlerContext, storageGrant, type TestContext } from "../support/handler-context";
import type { AcceptedSource } from "../../gpu-runner/media/source";
import { acceptedVideo, faceVideo } from "../support/media-fixtures";

/**
 * Every layout and every fill of `horizontal_in_vertical`, rendered by `renderClip` from one 7 s
 * segment of the moving-face video (1280×720, 25 fps, speech at 16 kHz) and read back with ffprobe,
 * the EBU R128 meter and decoded frames. Each render happens once (memoised) and is shared by the
 * rules about it. The last block runs the whole handler once, cheaply (no vision, a synthetic
 * transcript, ultrafast), for `categoryOverride` and the plan's `supportedLayouts`.
 */

const CS = DEFAULT_SETTINGS.clips;
const SEGMENT = { start: 3, durationSec: 7 };
const SRC = { srcW: 1280, srcH: 720 };
/** The moving-face video's backdrop (scripts/make-sample-media.ts `buildFaceReel`). */
const BACKDROP = [0x20, 0x28, 0x30];
/** Not the platform default (#1f2937), so the fill can only come from the job. */
const BRAND = { hex: "#1e90ff", rgb: [30, 144, 255] };

interface Variant {
  name: string;
  layout: ClipLayout;
  fillStyle: FillStyle | null;
}

const VARIANTS: Variant[] = [
  { name: "vertical_9_16", layout: "vertical_9_16", fillStyle: null },
  { name: "horizontal_in_vertical with black fill", layout: "horizontal_in_vertical", fillStyle: "black" },
  { name: "horizontal_in_vertical with blur fill", layout: "horizontal_in_vertical", fillStyle: "blur" },
  { name: "horizontal_in_vertical with branding fill", layout: "horizontal_in_vertical", fillStyle: "branding" },
  { name: "horizontal_16_9", layout: "horizontal_16_9", fillStyle: null },
  { name: "square_1_1", layout: "square_1_1", fillStyle: null },
];

let dir: string;
let source: AcceptedSource;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "clip-layouts-"));
  source = await acceptedVideo(await faceVideo("moving"));
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Rendered {
  file: string;
  width: number;
  height: number;
  vcodec: string;
  acodec: string;
  rFrameRate: string;
  avgFps: number;
  durationSec: number;
  integratedLufs: number;
  /** One decoded frame (RGB, 3 bytes per pixel) 3.5 s into the clip. */
  frame: { data: Buffer; width: number };
}

const renders = new Map<string, Promise<Rendered>>();
const rendered = (v: Variant): Promise<Rendered> => {
  let r = renders.get(v.name);
  if (!r) {
    r = renderAndRead(v);
    renders.set(v.name, r);
  }
  return r;
};

/** A crop that holds, pans for a second, then holds: the crop expression's both kinds of piece. */
function panningCrop(layout: ClipLayout): CropPiece[] {
  const { cropW } = cropSize(SRC.srcW, SRC.srcH, layout);
  const far = Math.min(400, SRC.srcW - cropW);
  return [
    { t0: 0, t1: 3, x0: 100, x1: 100 },
    { t0: 3, t1: 4, x0: 100, x1: far },
    { t0: 4, t1: SEGMENT.durationSec, x0: far, x1: far },
  ];
}

async function renderAndRead(v: Variant): Promise<Rendered> {
  const signal = AbortSignal.timeout(120_000);
  const file = path.join(dir, `${v.name.replace(/\W+/g, "-")}.mp4`);
  const crops = v.layout === "vertical_9_16" || v.layout === "square_1_1";
  await renderClip({
    source,
    output: file,
    ...SEGMENT,
    layout: v.layout,
    fillStyle: v.fillStyle,
    ...SRC,
    crop: crops ? panningCrop(v.layout) : null,
    ...cropSize(SRC.srcW, SRC.srcH, v.layout),
    assPath: null,
    loudness: await measureLoudness(source, SEGMENT.start, SEGMENT.durationSec, signal),
    hasAudio: true,
    brandColor: BRAND.hex,
    logo: null,
    fps: CS.fps,
    preset: "ultrafast",
    crf: CS.crf,
    signal,
  });
  const probe = await runToolOk(
    "ffprobe",
    [
      "-v",
      "error",
      "-show_entries",
      "stream=codec_type,codec_name,width,height,r_frame_rate,avg_frame_rate:format=duration",
      "-of",
      "json",
      ...INPUT_GUARD,
      "-i",
      file,
    ],
    { collectStdout: true, signal },
  );
  const j = JSON.parse(probe.stdout) as { streams: Array<Record<string, string | number>>; format: { duration: string } };
  const video = j.streams.find((s) => s["codec_type"] === "video")!;
  const audio = j.streams.find((s) => s["codec_type"] === "audio");
  const [num, den] = String(video["avg_frame_rate"]).split("/").map(Number);

  let integrated = Number.NaN;
  await runToolOk(
    "ffmpeg",
    ["-hide_banner", "-nostdin", "-nostats", ...INPUT_GUARD, "-i", file, "-map", "0:a:0", "-af", "ebur128", "-f", "null", "-"],
    {
      signal,
      // The summary's "I:" line (per-frame lines say "I: … LUFS" too, so the last one wins).
      onStderrLine: (line) => {
        const m = /^\s*I:\s+(-?[\d.]+) LUFS/.exec(line);
        if (m?.[1]) integrated = Number(m[1]);
      },
    },
  );

  const png = path.join(dir, `${v.name.replace(/\W+/g, "-")}.png`);
  await runToolOk("ffmpeg", ["-hide_banner", "-loglevel", "error", "-y", "-ss", "3.5", ...INPUT_GUARD, "-i", file, "-frames:v", "1", png], {
    signal,
  });
  const { data, info } = await sharp(await readFile(png))
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return {
    file,
    width: Number(video["width"]),
    height: Number(video["height"]),
    vcodec: String(video["codec_name"]),
    acodec: String(audio?.["codec_name"] ?? "none"),
    rFrameRate: String(video["r_frame_rate"]),
    avgFps: num! / den!,
    durationSec: Number(j.format.duration),
    integratedLufs: integrated,
    frame: { data, width: info.width },
  };
}

describe.each(VARIANTS)("$name", (v) => {
  let r: Rendered;
  beforeAll(async () => {
    r = await rendered(v);
  }, 180_000);

  it(`is ${LAYOUT_SIZE[v.layout].width}×${LAYOUT_SIZE[v.layout].height}, the layout's LAYOUT_SIZE`, () => {
    expect({ width: r.width, height: r.height }).toEqual(LAYOUT_SIZE[v.layout]);
  });

  it("is H.264 video with AAC audio", () => {
    expect({ video: r.vcodec, audio: r.acodec }).toEqual({ video: "h264", audio: "aac" });
  });

  it(`runs at the settings' ${CS.fps} fps, constant`, () => {
    expect(r.rFrameRate).toBe(`${CS.fps}/1`);
    expect(r.avgFps).toBeCloseTo(CS.fps, 1);
  });

  it("lasts the record's durationSec, within 0.1 s", () => {
    expect(Math.abs(r.durationSec - SEGMENT.durationSec)).toBeLessThan(0.1);
  });

  it(`is normalised to ${LOUDNESS.I} LUFS integrated, within 1 LU`, () => {
    expect(Math.abs(r.integratedLufs - LOUDNESS.I)).toBeLessThanOrEqual(1);
  });
});

/** Mean RGB over a rectangle of a decoded frame. */
function meanRgb(f: Rendered["frame"], x0: number, y0: number, x1: number, y1: number): number[] {
  const sum = [0, 0, 0];
  let n = 0;
  for (let y = y0; y < y1; y += 4)
    for (let x = x0; x < x1; x += 4) {
      const i = (y * f.width + x) * 3;
      for (let c = 0; c < 3; c++) sum[c]! += f.data[i + c]!;
      n++;
    }
  return sum.map((s) => s / n);
}
const luma = ([r, g, b]: number[]) => 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
const near = (a: number[], b: number[], tol: number) => a.every((v, i) => Math.abs(v - b[i]!) <= tol);

describe("horizontal_in_vertical fills", () => {
  const { width: W, height: H } = LAYOUT_SIZE.horizontal_in_vertical;
  const box = letterbox(SRC.srcW, SRC.srcH);
  // The bands around the letterboxed picture, kept a few pixels clear of its edges.
  const above = (f: Rendered["frame"]) => meanRgb(f, 0, 0, W, box.y - 8);
  const below = (f: Rendered["frame"]) => meanRgb(f, 0, box.y + box.h + 8, W, H);
  const picture = (f: Rendered["frame"]) => meanRgb(f, 0, box.y + 8, W, box.y + box.h - 8);
  const fill = (style: FillStyle) => rendered(VARIANTS.find((v) => v.fillStyle === style)!);

  it("black: the bands above and below the picture are black (luma under 4)", async () => {
    const { frame } = await fill("black");
    expect(luma(above(frame))).toBeLessThan(4);
    expect(luma(below(frame))).toBeLessThan(4);
  }, 180_000);

  it("blur: the bands show the picture itself, blurred (its backdrop colour), not black", async () => {
    const { frame } = await fill("blur");
    for (const band of [above(frame), below(frame)]) {
      expect(luma(band)).toBeGreaterThan(20);
      expect(near(band, BACKDROP, 16)).toBe(true);
    }
  }, 180_000);

  it("branding: the bands show the job's brand colour", async () => {
    const { frame } = await fill("branding");
    expect(near(above(frame), BRAND.rgb, 16)).toBe(true);
    expect(near(below(frame), BRAND.rgb, 16)).toBe(true);
  }, 180_000);

  it("every fill leaves the letterboxed picture itself the same", async () => {
    const [black, blur, branding] = await Promise.all([fill("black"), fill("blur"), fill("branding")]);
    const ref = picture(black.frame);
    expect(near(picture(blur.frame), ref, 3)).toBe(true);
    expect(near(picture(branding.frame), ref, 3)).toBe(true);
  }, 180_000);
});

/**
 * Sentences of eight words 0.35 s apart with 0.8 s pauses between them, over the whole video: the
 * rules below are about the category, not recognition, so no speech engine runs.
 */
function syntheticTranscript(durationSec: number) {
  const words: Array<{ word: string; start: number; end: number }> = [];
  const vocab = "today we look at how the small team ships a careful release every week".split(" ");
  for (let t = 0.5, i = 0; t + 3 < durationSec; t += 8 * 0.35 + 0.8)
    for (let k = 0; k < 8; k++, i++) words.push({ word: vocab[i % vocab.length]!, start: t + k * 0.35, end: t + k * 0.35 + 0.3 });
  return {
    textSourceId: "txt_test",
    language: "en",
    durationSec,
    segments: [{ start: words[0]!.start, end: words.at(-1)!.end, text: words.map((w) => w.word).join(" "), words }],
  };
}

const HANDLER_BUCKET = "clip-layouts-test";
let handlerS3: LocalS3 | undefined;

/** The local S3 with the video and the synthetic transcript, started once for the handler runs below. */
async function handlerStore(): Promise<LocalS3> {
  if (handlerS3) return handlerS3;
  const s3 = await startLocalS3({ buckets: [HANDLER_BUCKET] });
  const client = localS3Client(s3);
  await client.putObject(HANDLER_BUCKET, "scratch/transcript.json", JSON.stringify(syntheticTranscript(28.8)), "application/json");
  await client.putObject(HANDLER_BUCKET, "src/moving.mp4", await readFile(source.path), "video/mp4");
  handlerS3 = s3;
  return s3;
}

afterAll(async () => {
  await handlerS3?.close();
});

/**
 * The whole handler once, cheaply: one clip of 5–8 s, ultrafast, vision off (the category and the
 * layout it leads to do not need it); `options` and `clips` settings override the defaults.
 */
async function runHandler(opts: {
  options?: Record<string, unknown>;
  clips?: Record<string, unknown>;
  deps?: ClipHandlerDeps;
}): Promise<{ ctx: TestContext; result: ClipGenerationResult }> {
  const s3 = await handlerStore();
  const ctx = await makeHandlerContext({
    input: {
      clipGenerationId: "clp_handler",
      textSourceId: "txt_test",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: HANDLER_BUCKET,
      sourceKey: "src/moving.mp4",
      resolvedOutputPrefix: "out/clips/",
      options: {
        maxClips: 1,
        layout: null,
        allowAutoLayout: true,
        fillStyle: null,
        captions: false,
        supportedCategories: [...DEFAULT_SETTINGS.policy.clip_generation.free.supportedCategories],
        ...opts.options,
      },
      analysis: { vision: false, category: true },
    },
    step: stepSpec("clip_generation", renderClipsStep),
    outputs: { fetch_transcription: { transcriptKey: "scratch/transcript.json" } },
    storage: storageGrant(s3, HANDLER_BUCKET),
    settings: { clips: { minClipSec: 5, maxClipSec: 8, x264Preset: "ultrafast", ...opts.clips } },
  });
  try {
    return { ctx, result: ClipGenerationResultSchema.parse(await createClipGenerationHandler(opts.deps)(clipContext(ctx))) };
  } finally {
    await ctx.dispose();
  }
}

describe("categoryOverride and supportedLayouts, through the handler", () => {
  const SUPPORTED: ClipLayout[] = ["square_1_1", "horizontal_16_9"];
  let run: { ctx: TestContext; result: ClipGenerationResult };

  beforeAll(async () => {
    run = await runHandler({
      // Gaming leads to horizontal_in_vertical, and the platform default is vertical_9_16: neither is in this plan.
      options: { categoryOverride: "gaming", supportedLayouts: SUPPORTED },
    });
  }, 180_000);

  it("skips detect_category: the stage is reported skipped, never started", () => {
    expect(run.ctx.report.timeline().filter((e) => e.startsWith("detect_category:"))).toEqual(["detect_category:skipped"]);
  });

  it("records the override as the category, with categorySource override and no category engine", () => {
    expect(run.result).toMatchObject({ category: "gaming", categoryConfidence: 1, categorySource: "override" });
    expect(run.result.engines.category).toBeNull();
  });

  it("leads the automatic layout choice like a detected category would", () => {
    expect(run.result.layoutReason).toMatch(/^gaming: the whole picture matters/);
  });

  it("auto layout never picks a layout outside supportedLayouts: the choice falls back to one the plan has", () => {
    expect(run.result.layoutReason).toMatch(/horizontal_in_vertical is not in this plan's layouts, so square_1_1$/);
    expect(SUPPORTED).toContain(run.result.layout);
    expect(run.result.clips[0]).toMatchObject(LAYOUT_SIZE[run.result.layout]);
  });
});

describe("a hosted category engine that is unavailable, through the handler", () => {
  let run: { ctx: TestContext; result: ClipGenerationResult };

  beforeAll(async () => {
    // The platform asks for a hosted language model; this runner has no OPENAI_COMPAT_BASE_URL.
    run = await runHandler({ clips: { categoryEngine: "openai-compatible" }, deps: { env: {} } });
  }, 180_000);

  it("skips detect_category with the reason, and the job completes as with detection disabled", () => {
    const events = run.ctx.report.eventsOf("detect_category");
    expect(events.map((e) => e.event)).toEqual(["skipped"]);
    expect(events[0]?.details?.["reason"]).toMatch(/^the language model service is unavailable: .*OPENAI_COMPAT_BASE_URL is not set/);
    expect(run.result).toMatchObject({ category: null, categoryConfidence: null, categorySource: "unavailable" });
    expect(run.result.engines.category).toBeNull();
    expect(run.result.clips).toHaveLength(1);
  });

  it("chooses the layout without a category: the platform default", () => {
    expect(run.result).toMatchObject({ layout: DEFAULT_SETTINGS.clips.defaultLayout, layoutReason: "platform default (no category)" });
  });
});
