import { access, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { SampledFrame } from "../../engines/vision/interface";
import { sourceInput, type AcceptedSource } from "../../media/source";
import { FFMPEG, runToolOk } from "../../media/spawn";
import { round3 } from "../../step-input";
import type { EnergyTrack } from "./timeline";

/**
 * The ffmpeg work of clip generation: the analysis proxy (sampled frames, scene cuts and a loudness
 * track in one fast decode of the source), the per-moment sample (dense frames, exact cuts and the
 * measuring pass of two-pass loudness normalisation in one decode of the moment), and scene cuts on
 * their own (thumbnails). Rendering itself is in render.ts. The source is always one media/source.ts
 * accepted: every decode names its demuxer and reads no further than its measured duration.
 */

export interface VideoInfo {
  width: number;
  height: number;
  fps: number;
  durationSec: number;
  hasAudio: boolean;
}

/** The picture clips and thumbnails are made from; null when the source has none. */
export function videoInfo(src: AcceptedSource): VideoInfo | null {
  if (!src.video) return null;
  const { width, height, fps } = src.video;
  return { width, height, fps: fps > 0 ? fps : 30, durationSec: src.durationSec, hasAudio: src.hasAudio };
}

export interface Proxy {
  frames: SampledFrame[];
  energy: EnergyTrack;
  /** Scene cut times (`scdet` on a 256 px, 5 fps copy of the frames the fast decode keeps), from the same decode. */
  cuts: number[];
}

/**
 * Decoder options that make an analysis decode about five times cheaper than decoding every frame:
 * no B-frame is decoded, nor is the deblocking filter run. Detectors and `scdet` need neither every
 * frame nor clean block edges. What is left are the I- and P-frames: on x264's default GOP (3
 * B-frames) every fourth frame, 768 of the bench reel's 3,000 a minute, exact but for deblocking
 * (P-frames refer to none of the skipped frames there). A sampled frame is then the last kept frame
 * at or before its time (sampleAt), up to four frames (0.16 s at 25 fps) before it; with the scene
 * detector on a 5 fps copy a cut is found within a quarter of a second, and `sampleMoment` finds it
 * to the frame around the chosen moments, where it decodes every frame.
 */
const SKIP_B_FRAMES = ["-skip_frame", "bidir", "-skip_loop_filter", "all", "-flags2", "fast"] as const;
/**
 * The same, keeping the B-frames other frames refer to (a B-pyramid's middle ones): 1,512 of the
 * 3,000, 2.6 times the decoding work (3.0 against 1.2 CPU-s for the 10-minute bench reel), for
 * sampled frames within two frames of their times. For a source short enough that the ingest's
 * frames are the ones the crop follows.
 */
const SKIP_UNREFERENCED = ["-skip_frame", "noref", "-skip_loop_filter", "all", "-flags2", "fast"] as const;
/** Frames a second the ingest's scene detector compares: cuts within a quarter of a second, at under half the scaling work of every kept frame. */
const SCENE_FPS = 5;

/**
 * Decoder options for a decode whose frames the vision engine analyses as they come: its threads
 * keep the other core busy anyway, so the decoder runs on one thread, which costs about a sixth less
 * CPU than frame-threaded decoding (8.3-9.7 against 10.5-11.3 CPU-s for the 10-minute bench reel's ingest).
 */
const besideVision = (analysed: boolean): string[] => (analysed ? ["-threads", "1"] : []);

export interface ProxyOptions {
  /** Frames per second sampled for the vision engine (a rational such as `3/6` is kept exact); null: none. */
  frameRate: { num: number; den: number } | null;
  /** The frames are the ones the crop follows (no second, per-moment pass): each within two frames of its time, at 2.6 times the decoding work. */
  exactFrames?: boolean;
  width: number;
  energyStep: number;
  sceneThreshold: number;
  hasAudio: boolean;
  /** Called with each sampled frame, in order, as soon as ffmpeg has written it: analysis need not wait for the decode to end. */
  onFrame?: (frame: SampledFrame) => void;
  signal: AbortSignal;
}

/**
 * One fast decode of the source (SKIP_B_FRAMES, or SKIP_UNREFERENCED) for three outputs: frames sampled at
 * `frameRate`, scaled to `width`, as JPEGs (what the vision engine reads), scene cuts from `scdet` at
 * `sceneThreshold` on a 256 px copy at 5 fps, and the audio's RMS level every `energyStep` seconds (what the
 * moment score reads). ffmpeg decodes each input stream once and feeds every output, so the scenes
 * cost no second decode.
 */
export async function makeProxy(source: AcceptedSource, dir: string, opts: ProxyOptions): Promise<Proxy> {
  const energyFile = join(dir, "energy.txt");
  const scenesFile = join(dir, "scenes.txt");
  const args = [
    "-hide_banner",
    "-nostdin",
    "-y",
    "-loglevel",
    "error",
    ...(opts.exactFrames ? SKIP_UNREFERENCED : SKIP_B_FRAMES),
    ...besideVision(opts.frameRate !== null),
    ...sourceInput(source),
  ];
  // The scene branch ends in a sink inside the graph (no null output to wrap its frames for) unless
  // it is all there is: ffmpeg wants at least one output.
  const onlyScenes = !opts.frameRate && !opts.hasAudio;
  // Coarse cuts are enough here (the moment's decode finds them to the frame): the scene detector
  // compares frames 1/SCENE_FPS s apart instead of every kept frame.
  args.push(
    "-filter_complex",
    `[0:v:0]fps=${SCENE_FPS},${sceneFilter(opts.sceneThreshold, scenesFile)}${onlyScenes ? "[cuts]" : ",nullsink"}`,
  );
  if (onlyScenes) args.push("-map", "[cuts]", "-f", "null", "-");
  if (opts.frameRate) {
    // Atomic writes: a frame file that exists is complete, so it can be read while ffmpeg runs.
    args.push(
      "-map",
      "0:v:0",
      "-vf",
      `${sampleAt(opts.frameRate)},scale=${opts.width}:-2`,
      "-q:v",
      "4",
      "-atomic_writing",
      "1",
      join(dir, "f%06d.jpg"),
    );
  }
  if (opts.hasAudio) {
    const samples = Math.round(16000 * opts.energyStep);
    args.push(
      "-map",
      "0:a:0",
      "-af",
      `aformat=sample_rates=16000:channel_layouts=mono,asetnsamples=n=${samples}:p=0,astats=metadata=1:reset=1,ametadata=print:key=lavfi.astats.Overall.RMS_level:file=${filterFile(energyFile)}`,
      "-f",
      "null",
      "-",
    );
  }
  // Frame n is the one on screen at n / rate (the first is the source's first): see sampleAt.
  const rate = opts.frameRate;
  const frames = await runWritingFrames(args, dir, rate ? (i) => (i * rate.den) / rate.num : null, opts.onFrame, opts.signal);
  const db: number[] = [];
  if (opts.hasAudio) {
    for (const line of (await readFile(energyFile, "utf8").catch(() => "")).split("\n")) {
      const m = /RMS_level=(-?inf|-?[\d.]+)/.exec(line);
      if (m?.[1] !== undefined) db.push(m[1].endsWith("inf") ? -90 : Math.max(-90, Number(m[1])));
    }
  }
  return { frames, energy: { step: opts.energyStep, db }, cuts: await readCuts(scenesFile, 0) };
}

/**
 * Runs ffmpeg, which writes numbered frames (`f%06d.jpg`, atomically) into `dir`, and hands each
 * frame to `onFrame` in order as soon as it is complete, while ffmpeg goes on. `timeOf` gives frame
 * i's time in the source; null: the run writes no frames.
 */
async function runWritingFrames(
  args: string[],
  dir: string,
  timeOf: ((i: number) => number) | null,
  onFrame: ((frame: SampledFrame) => void) | undefined,
  signal: AbortSignal,
  onStderrLine?: (line: string) => void,
): Promise<SampledFrame[]> {
  const frames: SampledFrame[] = [];
  const collect = async () => {
    if (!timeOf) return;
    for (;;) {
      const next = { t: round3(timeOf(frames.length)), path: join(dir, frameName(frames.length)) };
      if (!(await exists(next.path))) return;
      frames.push(next);
      onFrame?.(next);
    }
  };
  const run = runToolOk(FFMPEG, args, { signal, ...(onStderrLine ? { onStderrLine } : {}) });
  let running = true;
  run.then(
    () => (running = false),
    () => (running = false),
  );
  while (running && timeOf) {
    await collect();
    await new Promise((r) => setTimeout(r, FRAME_POLL_MS));
  }
  await run;
  await collect();
  return frames;
}

const FRAME_POLL_MS = 100;
const frameName = (i: number) => `f${String(i + 1).padStart(6, "0")}.jpg`;
const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The fps filter that samples frames for the vision engine: frame n is the frame on screen at
 * n / rate, the last decoded frame at or before that time (`round=up`). With the filter's default
 * (`round=near`) it is the last frame within half a period after it: at 3 fps from 25 fps, every
 * sample was of the picture 0.13-0.16 s after the time it is analysed as, so the crop moved that
 * much ahead of the face. At or before: within one frame when every frame is decoded, within a
 * B-frame run (3 frames on x264's default GOP) for the ingest's decode of I- and P-frames.
 */
const sampleAt = (rate: number | { num: number; den: number }) =>
  `fps=${typeof rate === "number" ? rate : `${rate.num}/${rate.den}`}:round=up`;

/** Scales to 256 px (fast bilinear: the score compares whole frames) and prints `scdet`'s cuts to a file. */
const sceneFilter = (threshold: number, file: string) =>
  `scale=256:-2:flags=fast_bilinear,scdet=threshold=${threshold}:sc_pass=1,metadata=mode=print:file=${filterFile(file)}`;

/** Cut times from a `scdet` metadata file, shifted by `offset` seconds. */
async function readCuts(file: string, offset: number): Promise<number[]> {
  const cuts: number[] = [];
  for (const line of (await readFile(file, "utf8").catch(() => "")).split("\n")) {
    const m = /lavfi\.scd\.time=([\d.]+)/.exec(line);
    if (m?.[1] !== undefined) cuts.push(round3(offset + Number(m[1])));
  }
  return cuts;
}

export interface MomentSample {
  /** Frames at `frameRate` over the sampled range (empty without a rate). */
  frames: SampledFrame[];
  /** Scene cuts inside the sampled range, from every frame (source seconds). */
  cuts: number[];
  /** The first pass of two-pass loudnorm over exactly [start, end]; null without audio. */
  loudness: LoudnessMeasure | null;
  /** The sampled range, source seconds: [start, end] widened by the margin (not before 0). */
  from: number;
  to: number;
}

/**
 * Everything the render of one moment needs from the source, in one decode of the moment and a
 * `margin` around it: frames for the dense vision pass, scene cuts from every frame (the ingest's
 * fast decode may find a cut a few frames late), and the loudness measuring pass over the moment.
 */
export async function sampleMoment(
  source: AcceptedSource,
  dir: string,
  opts: {
    start: number;
    end: number;
    margin: number;
    frameRate: number | null;
    width: number;
    sceneThreshold: number;
    hasAudio: boolean;
    /** Called with each frame, in order, as soon as it is written. */
    onFrame?: (frame: SampledFrame) => void;
    /**
     * Nothing else runs beside this decode but the vision engine (the first moment, before any
     * render): the decoder may take every core, since the engine waits for its frames.
     */
    alone?: boolean;
    signal: AbortSignal;
  },
): Promise<MomentSample> {
  await mkdir(dir, { recursive: true });
  const from = Math.max(0, opts.start - opts.margin);
  const lead = opts.start - from;
  const dur = opts.end - opts.start;
  const scenesFile = join(dir, "scenes.txt");
  const graph = [`[0:v:0]${opts.frameRate ? "split[s][f];[s]" : ""}${sceneFilter(opts.sceneThreshold, scenesFile)}[cuts]`];
  if (opts.frameRate) graph.push(`[f]${sampleAt(opts.frameRate)},scale=${opts.width}:-2[frames]`);
  if (opts.hasAudio) {
    // The same samples the render's `-ss start -t dur` reads: the moment, not the margin.
    graph.push(`[0:a:0]atrim=start=${lead.toFixed(3)}:duration=${dur.toFixed(3)},${loudnormMeasure},anullsink`);
  }
  const args = ["-hide_banner", "-nostdin", "-nostats", "-y", "-loglevel", "info"];
  args.push(
    ...besideVision(opts.frameRate !== null && !opts.alone),
    ...sourceInput(source, { seek: from, duration: lead + dur + opts.margin }),
  );
  args.push("-filter_complex", graph.join(";"));
  args.push("-map", "[cuts]", "-f", "null", "-");
  if (opts.frameRate) args.push("-map", "[frames]", "-q:v", "4", "-atomic_writing", "1", join(dir, "f%06d.jpg"));
  const json = loudnormJsonReader();
  const rate = opts.frameRate;
  // Frame n is the one on screen at n / rate after the seek point: see sampleAt.
  const frames = await runWritingFrames(args, dir, rate ? (i) => from + i / rate : null, opts.onFrame, opts.signal, json.line);
  return {
    frames,
    cuts: await readCuts(scenesFile, from),
    loudness: opts.hasAudio ? json.result() : null,
    from,
    to: from + lead + dur + opts.margin,
  };
}

/** A path as a filter option value (`:`, `'` and `\` escaped). */
const filterFile = (path: string) => path.replace(/([\\':])/g, "\\$1");

/** Scene cut times from ffmpeg's `scdet` (score 0–100 against `threshold`) on a small decode. */
export async function detectSceneCuts(
  source: AcceptedSource,
  threshold: number,
  signal: AbortSignal,
): Promise<{ cuts: number[]; scores: number[] }> {
  const cuts: number[] = [];
  const scores: number[] = [];
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      ...sourceInput(source),
      "-map",
      "0:v:0",
      "-vf",
      `scale=256:-2,scdet=threshold=${threshold}:sc_pass=1,metadata=mode=print`,
      "-f",
      "null",
      "-",
    ],
    {
      signal,
      onStderrLine: (line) => {
        const t = /lavfi\.scd\.time=([\d.]+)/.exec(line);
        if (t?.[1] !== undefined) cuts.push(Number(t[1]));
        const s = /lavfi\.scd\.score=([\d.]+)/.exec(line);
        if (s?.[1] !== undefined) scores.push(Number(s[1]));
      },
    },
  );
  return { cuts, scores };
}

export interface LoudnessMeasure {
  input_i: string;
  input_tp: string;
  input_lra: string;
  input_thresh: string;
  target_offset: string;
}

export const LOUDNESS = { I: -14, TP: -1.5, LRA: 11 } as const;

const loudnormMeasure = `loudnorm=I=${LOUDNESS.I}:TP=${LOUDNESS.TP}:LRA=${LOUDNESS.LRA}:print_format=json`;

/** Collects the JSON block loudnorm prints to stderr when it ends. */
function loudnormJsonReader(): { line: (line: string) => void; result: () => LoudnessMeasure | null } {
  let json = "";
  let inJson = false;
  return {
    line: (line) => {
      if (line.trim() === "{") inJson = true;
      if (inJson) json += line + "\n";
      if (line.trim() === "}") inJson = false;
    },
    result: () => {
      try {
        const m = JSON.parse(json) as LoudnessMeasure;
        return Number.isFinite(Number(m.input_i)) ? m : null;
      } catch {
        return null;
      }
    },
  };
}

/** First pass of two-pass loudnorm over [start, start+dur] of the source's audio. */
export async function measureLoudness(
  source: AcceptedSource,
  start: number,
  dur: number,
  signal: AbortSignal,
): Promise<LoudnessMeasure | null> {
  const json = loudnormJsonReader();
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      ...sourceInput(source, { seek: start, duration: dur }),
      "-map",
      "0:a:0",
      "-af",
      loudnormMeasure,
      "-f",
      "null",
      "-",
    ],
    { signal, onStderrLine: json.line },
  );
  return json.result();
}
