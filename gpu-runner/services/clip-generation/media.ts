import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { runToolOk } from "../../media/spawn";
import type { EnergyTrack } from "./timeline";

/**
 * The ffmpeg work of clip generation: the analysis proxy (sampled frames and a loudness track in one
 * decode), scene cuts with `scdet`, and the measurement pass of two-pass loudness normalisation.
 * Rendering itself is in render.ts.
 */

const FFMPEG = "ffmpeg";
const FFPROBE = "ffprobe";

export interface VideoInfo {
  width: number;
  height: number;
  fps: number;
  durationSec: number;
  hasAudio: boolean;
}

export async function probeVideo(path: string, signal: AbortSignal): Promise<VideoInfo | null> {
  const res = await runToolOk(
    FFPROBE,
    ["-v", "error", "-show_entries", "stream=codec_type,width,height,avg_frame_rate:format=duration", "-of", "json", path],
    { signal, collectStdout: true },
  );
  const json = JSON.parse(res.stdout) as {
    streams?: Array<{ codec_type?: string; width?: number; height?: number; avg_frame_rate?: string }>;
    format?: { duration?: string };
  };
  const v = json.streams?.find((s) => s.codec_type === "video" && s.width && s.height);
  if (!v) return null;
  const [n, d] = (v.avg_frame_rate ?? "30/1").split("/").map(Number);
  const fps = n && d ? n / d : 30;
  return {
    width: v.width!,
    height: v.height!,
    fps: Number.isFinite(fps) && fps > 0 ? fps : 30,
    durationSec: Number(json.format?.duration ?? 0),
    hasAudio: (json.streams ?? []).some((s) => s.codec_type === "audio"),
  };
}

export interface Proxy {
  frames: Array<{ t: number; path: string }>;
  energy: EnergyTrack;
  /** Scene cut times (`scdet` on a 256 px copy), from the same decode. */
  cuts: number[];
}

/**
 * One decode of the source for three outputs: frames sampled at `fps` scaled to `width` as JPEGs
 * (what the vision engine reads), scene cuts from `scdet` at `sceneThreshold` on a 256 px copy, and
 * the audio's RMS level every `energyStep` seconds (what the moment score reads). ffmpeg decodes
 * each input stream once and feeds every output, so the scenes cost no second decode.
 */
export async function makeProxy(
  source: string,
  dir: string,
  opts: { fps: number; width: number; energyStep: number; sceneThreshold: number; hasAudio: boolean; signal: AbortSignal },
): Promise<Proxy> {
  const energyFile = join(dir, "energy.txt");
  const scenesFile = join(dir, "scenes.txt");
  const args = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", "-i", source];
  args.push("-map", "0:v:0", "-vf", `fps=${opts.fps},scale=${opts.width}:-2`, "-q:v", "4", join(dir, "f%06d.jpg"));
  args.push(
    "-map",
    "0:v:0",
    "-vf",
    `scale=256:-2,scdet=threshold=${opts.sceneThreshold}:sc_pass=1,metadata=mode=print:file=${filterFile(scenesFile)}`,
    "-f",
    "null",
    "-",
  );
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
  await runToolOk(FFMPEG, args, { signal: opts.signal });
  const names = (await readdir(dir)).filter((f) => /^f\d+\.jpg$/.test(f)).sort();
  // The fps filter puts frame n at n / fps (its first output frame is the source's first).
  const frames = names.map((name, i) => ({ t: i / opts.fps, path: join(dir, name) }));
  const db: number[] = [];
  if (opts.hasAudio) {
    for (const line of (await readFile(energyFile, "utf8").catch(() => "")).split("\n")) {
      const m = /RMS_level=(-?inf|-?[\d.]+)/.exec(line);
      if (m?.[1] !== undefined) db.push(m[1].endsWith("inf") ? -90 : Math.max(-90, Number(m[1])));
    }
  }
  const cuts: number[] = [];
  for (const line of (await readFile(scenesFile, "utf8").catch(() => "")).split("\n")) {
    const m = /lavfi\.scd\.time=([\d.]+)/.exec(line);
    if (m?.[1] !== undefined) cuts.push(Number(m[1]));
  }
  return { frames, energy: { step: opts.energyStep, db }, cuts };
}

/** A path as a filter option value (`:`, `'` and `\` escaped). */
const filterFile = (path: string) => path.replace(/([\\':])/g, "\\$1");

/** Scene cut times from ffmpeg's `scdet` (score 0–100 against `threshold`) on a small decode. */
export async function detectSceneCuts(
  source: string,
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
      "-i",
      source,
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

/** First pass of two-pass loudnorm over [start, start+dur] of the source's audio. */
export async function measureLoudness(source: string, start: number, dur: number, signal: AbortSignal): Promise<LoudnessMeasure | null> {
  let json = "";
  let inJson = false;
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      "-ss",
      start.toFixed(3),
      "-t",
      dur.toFixed(3),
      "-i",
      source,
      "-map",
      "0:a:0",
      "-af",
      `loudnorm=I=${LOUDNESS.I}:TP=${LOUDNESS.TP}:LRA=${LOUDNESS.LRA}:print_format=json`,
      "-f",
      "null",
      "-",
    ],
    {
      signal,
      onStderrLine: (line) => {
        if (line.trim() === "{") inJson = true;
        if (inJson) json += line + "\n";
        if (line.trim() === "}") inJson = false;
      },
    },
  );
  try {
    const m = JSON.parse(json) as LoudnessMeasure;
    return Number.isFinite(Number(m.input_i)) ? m : null;
  } catch {
    return null;
  }
}
