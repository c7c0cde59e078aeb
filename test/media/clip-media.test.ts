import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import type { SampledFrame } from "../../gpu-runner/engines/vision/interface";
import { makeProxy, measureLoudness, sampleMoment, type MomentSample, type Proxy } from "../../gpu-runner/services/clip-generation/media";
import { buildAss, captionStyleFor } from "../../gpu-runner/services/clip-generation/captions";
import { cropSize, renderClip } from "../../gpu-runner/services/clip-generation/render";
import type { AcceptedSource } from "../../gpu-runner/media/source";
import { acceptedVideo, faceVideo } from "../support/media-fixtures";
import { pixelsApart } from "../support/pixels";

/**
 * The ffmpeg passes of clip generation before the render, on the interview face video (1280×720,
 * 25 fps, x264 with B-frames; close-ups alternating every 8 s, so cuts at 8, 16 and 24 s): the
 * ingest's fast decode (I- and P-frames only) and the per-moment decode (every frame). Each pass
 * runs once and its rules share it.
 */

const TRUE_CUTS = [8, 16, 24];
const THRESHOLD = 10;
const MOMENT = { start: 10, end: 20, margin: 1 };
let dir: string;
let source: AcceptedSource;
let proxy: Proxy;
let handedOver: SampledFrame[];
let moment: MomentSample;

const signal = () => AbortSignal.timeout(120_000);
const nearest = (xs: readonly number[], x: number) => Math.min(...xs.map((c) => Math.abs(c - x)));

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "clip-media-"));
  source = await acceptedVideo(await faceVideo("interview"));
  const proxyDir = path.join(dir, "proxy");
  await mkdir(proxyDir);
  handedOver = [];
  proxy = await makeProxy(source, proxyDir, {
    frameRate: { num: 3, den: 2 },
    width: 640,
    energyStep: 0.5,
    sceneThreshold: THRESHOLD,
    hasAudio: true,
    onFrame: (f) => handedOver.push(f),
    signal: signal(),
  });
  moment = await sampleMoment(source, path.join(dir, "moment"), {
    ...MOMENT,
    frameRate: 3,
    width: 640,
    sceneThreshold: THRESHOLD,
    hasAudio: true,
    signal: signal(),
  });
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("ingest: one fast decode of the source", () => {
  it("finds every scene cut within 0.2 s from the I- and P-frames alone, and no other", () => {
    expect(proxy.cuts.length).toBe(TRUE_CUTS.length);
    for (const c of TRUE_CUTS) expect(nearest(proxy.cuts, c), `cut at ${c} s`).toBeLessThanOrEqual(0.2);
  });

  it("samples frames at the asked rate, frame n at n / rate", () => {
    // 29 s at 1.5 frames a second: one at 0, one per 2/3 s.
    expect(proxy.frames.length).toBeGreaterThanOrEqual(43);
    expect(proxy.frames.length).toBeLessThanOrEqual(45);
    proxy.frames.forEach((f, i) => expect(f.t).toBeCloseTo((i * 2) / 3, 3));
  });

  it("hands every frame over as it is written, in order, each a complete JPEG", async () => {
    expect(handedOver).toEqual(proxy.frames);
    for (const f of [handedOver[0]!, handedOver.at(-1)!]) {
      const meta = await sharp(await readFile(f.path)).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 640, 360]);
    }
  });

  it("reads the loudness track every energyStep seconds over the whole source", () => {
    expect(proxy.energy.step).toBe(0.5);
    expect(proxy.energy.db.length).toBeGreaterThanOrEqual(56);
    expect(proxy.energy.db.some((db) => db > -40)).toBe(true);
  });

  it("writes no frames when none are asked for, and still finds the cuts", async () => {
    const bare = path.join(dir, "bare");
    await mkdir(bare);
    const r = await makeProxy(source, bare, {
      frameRate: null,
      width: 640,
      energyStep: 0.5,
      sceneThreshold: THRESHOLD,
      hasAudio: false,
      signal: signal(),
    });
    expect(r.frames).toEqual([]);
    expect(r.cuts.length).toBe(TRUE_CUTS.length);
  });
});

describe("a cut on a frame the fast decode skips", () => {
  // The interview re-encoded 0.04 s in, without B-frames as references or keyframes at cuts: every
  // cut then lands on or near a non-reference frame, which the ingest does not decode.
  const SHIFTED_CUTS = TRUE_CUTS.map((c) => c - 0.04);
  let shifted: AcceptedSource;
  beforeAll(async () => {
    const file = path.join(dir, "no-reference-b-frames.mp4");
    await runToolOk("ffmpeg", [
      ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-ss", "0.04", ...INPUT_GUARD, "-i", source.path, "-an"],
      ...["-c:v", "libx264", "-preset", "veryfast", "-x264-params", "scenecut=0:keyint=300:b-pyramid=none", file],
    ]);
    shifted = await acceptedVideo(file);
  }, 120_000);

  it("is found within 0.2 s by the ingest", async () => {
    const out = path.join(dir, "shifted-proxy");
    await mkdir(out);
    const r = await makeProxy(shifted, out, {
      frameRate: null,
      width: 640,
      energyStep: 0.5,
      sceneThreshold: THRESHOLD,
      hasAudio: false,
      signal: signal(),
    });
    expect(r.cuts.length).toBe(SHIFTED_CUTS.length);
    r.cuts.forEach((c, i) => expect(Math.abs(c - SHIFTED_CUTS[i]!)).toBeLessThanOrEqual(0.2));
  });

  it("is found to the frame by the moment's decode", async () => {
    const m = await sampleMoment(shifted, path.join(dir, "shifted-moment"), {
      ...MOMENT,
      frameRate: null,
      width: 640,
      sceneThreshold: THRESHOLD,
      hasAudio: false,
      signal: signal(),
    });
    expect(m.cuts.length).toBe(1);
    expect(Math.abs(m.cuts[0]! - SHIFTED_CUTS[1]!)).toBeLessThanOrEqual(0.02);
  });
});

describe("a moment: one decode of it and its margin", () => {
  it("finds the cuts inside the sampled range from every frame, in source seconds, to the frame", () => {
    expect(moment.cuts.length).toBe(1);
    expect(Math.abs(moment.cuts[0]! - 16)).toBeLessThanOrEqual(0.04);
  });

  it("samples frames at the rate from the margin before the moment to the margin after it", () => {
    expect([moment.from, moment.to]).toEqual([MOMENT.start - MOMENT.margin, MOMENT.end + MOMENT.margin]);
    expect(moment.frames[0]!.t).toBe(9);
    expect(moment.frames.length).toBeGreaterThanOrEqual(35);
    expect(moment.frames.at(-1)!.t).toBeLessThanOrEqual(21);
    moment.frames.forEach((f, i) => expect(f.t).toBeCloseTo(9 + i / 3, 3));
  });

  it("measures the loudness of the moment itself, as a pass over just the moment does", async () => {
    const alone = await measureLoudness(source, MOMENT.start, MOMENT.end - MOMENT.start, signal());
    expect(moment.loudness).not.toBeNull();
    expect(Math.abs(Number(moment.loudness!.input_i) - Number(alone!.input_i))).toBeLessThanOrEqual(0.1);
    expect(Math.abs(Number(moment.loudness!.input_tp) - Number(alone!.input_tp))).toBeLessThanOrEqual(0.1);
  });

  it("starts the range at 0 for a moment closer to the start than the margin", async () => {
    const early = await sampleMoment(source, path.join(dir, "early"), {
      start: 0.4,
      end: 5,
      margin: 1,
      frameRate: null,
      width: 640,
      sceneThreshold: THRESHOLD,
      hasAudio: true,
      signal: signal(),
    });
    expect(early.from).toBe(0);
    expect(early.frames).toEqual([]);
    expect(early.loudness).not.toBeNull();
  });
});

describe("sampled frames are the pictures on screen at their times", () => {
  // A 25 fps x264 video with a fixed GOP of 3 B-frames in a pyramid whose frame n is a flat grey of
  // level n mod 25: each sampled JPEG tells which source frame it is.
  const FPS = 25;
  const LEVELS = 25;
  let counter: AcceptedSource;
  beforeAll(async () => {
    const file = path.join(dir, "frame-counter.mp4");
    await runToolOk("ffmpeg", [
      ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-f", "lavfi"],
      ...[...INPUT_GUARD, "-i", `color=c=black:s=64x64:r=${FPS}:d=12,format=gray,geq=lum='16+8*mod(N\\,${LEVELS})'`],
      ...["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"],
      ...["-x264-params", "bframes=3:b-adapt=0:b-pyramid=normal:scenecut=0:keyint=250", file],
    ]);
    counter = await acceptedVideo(file);
  }, 60_000);

  /** How many source frames before its time each sampled frame's picture is (0: the frame due then). */
  async function lagsOf(frames: readonly SampledFrame[]): Promise<number[]> {
    return Promise.all(
      frames.map(async (f) => {
        const level = Math.round(((await sharp(f.path).stats()).channels[0]!.mean - 16) / 8);
        const due = f.t * FPS;
        const shown = due - ((((due - level) % LEVELS) + LEVELS) % LEVELS);
        return round2(due - (due - shown > LEVELS / 2 ? shown + LEVELS : shown));
      }),
    );
  }
  const round2 = (x: number) => Math.round(x * 100) / 100;
  /** Never a picture from after the frame's time, nor `frames` or more before it. */
  const expectLagsWithin = (lags: readonly number[], frames: number) => {
    expect(Math.min(...lags)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...lags)).toBeLessThan(frames);
  };
  const proxyOf = async (name: string, exactFrames: boolean) => {
    const out = path.join(dir, name);
    await mkdir(out);
    return makeProxy(counter, out, {
      frameRate: { num: 3, den: 1 },
      exactFrames,
      width: 64,
      energyStep: 0.5,
      sceneThreshold: THRESHOLD,
      hasAudio: false,
      signal: signal(),
    });
  };

  it("the moment's decode samples the frame on screen at each time: at most one frame before it", async () => {
    const m = await sampleMoment(counter, path.join(dir, "counter-moment"), {
      start: 4,
      end: 8,
      margin: 1,
      frameRate: 3,
      width: 64,
      sceneThreshold: THRESHOLD,
      hasAudio: false,
      signal: signal(),
    });
    expect(m.frames.length).toBeGreaterThanOrEqual(18);
    expectLagsWithin(await lagsOf(m.frames), 1);
  });

  it("the ingest's frames for the crop (exactFrames) are at most two frames before their times", async () => {
    const lags = await lagsOf((await proxyOf("counter-exact", true)).frames);
    expect(lags.length).toBeGreaterThanOrEqual(35);
    expectLagsWithin(lags, 2);
  });

  it("the ingest's sparse frames, from I- and P-frames alone, are at most four frames before their times", async () => {
    const lags = await lagsOf((await proxyOf("counter-sparse", false)).frames);
    expect(lags.length).toBeGreaterThanOrEqual(35);
    expectLagsWithin(lags, 4);
    // Fewer frames decoded than with exactFrames: some samples fall further back than two frames.
    expect(Math.max(...lags)).toBeGreaterThanOrEqual(2);
  });
});

/** One second of the interview as a 9:16 clip, `words` burned in as captions; resolves to its poster (at 0.5 s). */
async function renderWithCaptions(name: string, words: readonly string[] | null): Promise<string> {
  const output = path.join(dir, `${name}.mp4`);
  const poster = path.join(dir, `${name}.jpg`);
  let assPath: string | null = null;
  if (words) {
    assPath = path.join(dir, `${name}.ass`);
    // On screen from 0 s to past the poster at 0.5 s.
    const timed = words.map((word, i) => ({ word, start: i * 0.1, end: 0.9 + i * 0.01 }));
    await writeFile(assPath, buildAss(timed, captionStyleFor(1080, 1920)));
  }
  await renderClip({
    source,
    output,
    start: 2,
    durationSec: 1,
    layout: "vertical_9_16",
    fillStyle: null,
    srcW: 1280,
    srcH: 720,
    crop: null,
    ...cropSize(1280, 720, "vertical_9_16"),
    assPath,
    loudness: null,
    hasAudio: true,
    brandColor: "#000000",
    logo: null,
    fps: DEFAULT_SETTINGS.clips.fps,
    preset: "ultrafast",
    crf: 30,
    poster: { output: poster, at: 0.5 },
    signal: signal(),
  });
  return poster;
}

describe("render", () => {
  it("takes the poster from the render itself: a JPEG of the clip's size", async () => {
    const poster = await renderWithCaptions("clip", null);
    const meta = await sharp(await readFile(poster)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1080, 1920]);
  });

  it("burns in Chinese, Japanese and Korean captions with their own glyphs, not boxes", async () => {
    // Missing glyphs all draw as the same box: three different words of three characters would then look alike.
    const [ja, zh, ko] = await Promise.all([
      renderWithCaptions("captions-ja", ["日本", "語"]),
      renderWithCaptions("captions-zh", ["中文", "字"]),
      renderWithCaptions("captions-ko", ["한국어"]),
    ]);
    for (const [a, b] of [
      [ja!, zh!],
      [zh!, ko!],
      [ja!, ko!],
    ] as const)
      expect(await pixelsApart(a, b)).toBeGreaterThan(2000);
  });
});
