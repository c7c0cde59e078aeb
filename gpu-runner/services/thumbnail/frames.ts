import { existsSync } from "node:fs";
import { join } from "node:path";
import { openImage } from "../../media/images";
import phash from "sharp-phash";
import distance from "sharp-phash/distance";
import type { FrameObservation } from "../../engines/vision/interface";
import { sourceInput, type AcceptedSource } from "../../media/source";
import { FFMPEG, runToolOk } from "../../media/spawn";

/**
 * Frame picking for thumbnails: candidate times from the scenes, one still per candidate, image
 * measures (sharpness, exposure, a perceptual hash), a score with the faces the vision engine saw,
 * and a diverse selection that never takes a black, blank or blurred frame.
 */

/**
 * Candidate times: each scene's representative (40% in, at least 0.5 s after its cut, so never a
 * transition), then an even grid to fill long scenes; the first and last 3% are left out (fades,
 * title cards, end screens). At most `max`, spread over the whole video.
 */
export function candidateTimes(durationSec: number, cuts: readonly number[], max: number): number[] {
  if (durationSec <= 0) return [];
  const margin = Math.min(2, durationSec * 0.03);
  const lo = margin;
  const hi = Math.max(lo, durationSec - margin);
  const bounds = [0, ...cuts.filter((c) => c > 0 && c < durationSec), durationSec];
  const scenes: number[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const [a, b] = [bounds[i]!, bounds[i + 1]!];
    if (b - a < 0.6) continue;
    scenes.push(clamp(Math.max(a + 0.5, a + (b - a) * 0.4), lo, hi));
  }
  const grid: number[] = [];
  const n = Math.max(1, max);
  for (let i = 0; i < n; i++) grid.push(lo + ((hi - lo) * (i + 0.5)) / n);
  const picked = spreadSubset(scenes, max);
  for (const t of grid) {
    if (picked.length >= max) break;
    if (picked.every((p) => Math.abs(p - t) >= 1)) picked.push(t);
  }
  return picked.sort((a, b) => a - b).map((t) => Math.round(t * 1000) / 1000);
}

/** Up to `max` of sorted times, evenly spread. */
function spreadSubset(times: readonly number[], max: number): number[] {
  if (times.length <= max) return [...times];
  return Array.from({ length: max }, (_, i) => times[Math.floor(((i + 0.5) * times.length) / max)]!);
}

/** Stills decoded per ffmpeg process: one input per still, so one process start serves several. */
const STILLS_PER_PROCESS = 8;

/** One still per time, at most `maxWidth` wide (the covers are cropped from these). */
export async function extractStills(
  source: AcceptedSource,
  times: readonly number[],
  dir: string,
  maxWidth: number,
  signal: AbortSignal,
): Promise<Array<{ t: number; path: string }>> {
  const out = times.map((t, i) => ({ t, path: join(dir, `still-${String(i).padStart(3, "0")}.jpg`) }));
  for (let first = 0; first < out.length; first += STILLS_PER_PROCESS) {
    const batch = out.slice(first, first + STILLS_PER_PROCESS);
    // Input seeking per still: each decodes from the keyframe before its time only (one GOP).
    const inputs = batch.flatMap((s) => sourceInput(source, { seek: s.t }));
    const outputs = batch.flatMap((s, i) => [
      "-map",
      `${i}:v:0`,
      "-frames:v",
      "1",
      "-vf",
      `scale='min(${maxWidth},iw)':-2`,
      "-q:v",
      "2",
      s.path,
    ]);
    await runToolOk(FFMPEG, ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...inputs, ...outputs], { signal });
  }
  // A time past the last decodable frame (a truncated file) yields no still: leave it out.
  return out.filter((s) => existsSync(s.path));
}

export interface ImageMeasures {
  /** Variance of a 4-neighbour Laplacian on a 256 px wide grey copy. */
  sharpness: number;
  brightness: number;
  contrast: number;
  /** Share of pixels crushed to black (< 10) or blown to white (> 245). */
  clipped: number;
  /** 64-bit DCT perceptual hash (sharp-phash), as a 0/1 string. */
  hash: string;
}

export async function measureImage(path: string): Promise<ImageMeasures> {
  const { data, info } = await openImage(path).greyscale().resize({ width: 256 }).raw().toBuffer({ resolveWithObject: true });
  const w = info.width;
  const h = info.height;
  let sum = 0;
  let sq = 0;
  let clipped = 0;
  for (const v of data) {
    sum += v;
    sq += v * v;
    if (v < 10 || v > 245) clipped++;
  }
  const n = data.length;
  const mean = sum / n;
  let lsum = 0;
  let lsq = 0;
  let m = 0;
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      const i = y * w + x;
      const lap = data[i - 1]! + data[i + 1]! + data[i - w]! + data[i + w]! - 4 * data[i]!;
      lsum += lap;
      lsq += lap * lap;
      m++;
    }
  }
  const lmean = lsum / Math.max(1, m);
  return {
    sharpness: lsq / Math.max(1, m) - lmean * lmean,
    brightness: mean,
    contrast: Math.sqrt(Math.max(0, sq / n - mean * mean)),
    clipped: clipped / n,
    hash: await phash(path),
  };
}

/** Why a frame can never be a thumbnail, or null when it can. */
export function unusable(m: ImageMeasures, medianSharpness: number): string | null {
  if (m.brightness < 28) return "black";
  if (m.brightness > 235) return "blown out";
  if (m.contrast < 14) return "blank";
  if (m.sharpness < Math.max(20, medianSharpness * 0.3)) return "blurred";
  return null;
}

/**
 * 0–1: how good the best face is for a cover: its confidence, its size (a fifth of the frame's
 * height or more counts fully), how frontal it is, and open eyes when the model can tell.
 */
export function faceQuality(obs: FrameObservation | undefined): number {
  if (!obs) return 0;
  let best = 0;
  for (const f of obs.faces) {
    if (f.score < 0.5) continue;
    const size = Math.min(1, f.box.height / 0.2);
    const frontal = f.yawDeg === null ? 0.8 : Math.max(0, 1 - Math.abs(f.yawDeg) / 60);
    const eyes = f.eyesOpen === false ? 0.85 : 1;
    best = Math.max(best, f.score * (0.4 + 0.6 * size) * (0.3 + 0.7 * frontal) * eyes);
  }
  return best;
}

export interface Candidate {
  t: number;
  path: string;
  measures: ImageMeasures;
  observation: FrameObservation | undefined;
  /** Null when usable. */
  rejected: string | null;
  faceQuality: number;
  total: number;
}

/** Combines the measures: sharpness (relative to the sharpest candidate), exposure, faces. */
export function scoreCandidates(
  frames: ReadonlyArray<{ t: number; path: string; measures: ImageMeasures; observation: FrameObservation | undefined }>,
): Candidate[] {
  const sharp = frames.map((f) => f.measures.sharpness).sort((a, b) => a - b);
  const median = sharp[Math.floor(sharp.length / 2)] ?? 0;
  const maxSharp = Math.max(1, ...sharp);
  const withFaces = frames.some((f) => (f.observation?.faces.length ?? 0) > 0);
  return frames.map((f) => {
    const m = f.measures;
    const sharpness = Math.log1p(m.sharpness) / Math.log1p(maxSharp);
    const exposure = Math.max(0, 1 - Math.abs(m.brightness - 120) / 120 - m.clipped);
    const contrast = Math.min(1, m.contrast / 60);
    const fq = faceQuality(f.observation);
    // Without a face anywhere in the video, the face term would only shift every score equally.
    const total = withFaces
      ? 0.3 * sharpness + 0.2 * exposure + 0.1 * contrast + 0.4 * fq
      : 0.5 * sharpness + 0.3 * exposure + 0.2 * contrast;
    return { ...f, rejected: unusable(m, median), faceQuality: fq, total: Math.round(total * 1000) / 1000 };
  });
}

/**
 * The best `count` usable candidates that look different: a candidate is taken only if its hash is
 * at least `minDistance` bits from every one already taken; when that leaves too few, the bar is
 * lowered in steps (never to the point of taking a rejected frame).
 */
export function pickDiverse(candidates: readonly Candidate[], count: number, minDistance = 14): Candidate[] {
  const usable = candidates.filter((c) => c.rejected === null).sort((a, b) => b.total - a.total || a.t - b.t);
  const picked: Candidate[] = [];
  for (const bar of [minDistance, Math.floor(minDistance / 2), Math.floor(minDistance / 4), 0]) {
    for (const c of usable) {
      if (picked.length >= count) break;
      if (picked.includes(c)) continue;
      if (picked.every((p) => distance(p.measures.hash, c.measures.hash) >= bar && Math.abs(p.t - c.t) >= 1)) picked.push(c);
    }
  }
  return picked;
}

export function hashDistance(a: string, b: string): number {
  return distance(a, b);
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, v));
}

/**
 * Reorders candidates (best first) so that neighbours look as different as the list allows: each
 * next one is the best remaining at least `bar` bits from all taken, else the best remaining. Cover
 * variants take frames in this order, so two covers are not the same shot twice.
 */
export function diverseOrder<T extends { measures: { hash: string } }>(ranked: readonly T[], bar = 22): T[] {
  const rest = [...ranked];
  const out: T[] = [];
  while (rest.length > 0) {
    const i = rest.findIndex((c) => out.every((o) => distance(o.measures.hash, c.measures.hash) >= bar));
    out.push(...rest.splice(i >= 0 ? i : 0, 1));
  }
  return out;
}
