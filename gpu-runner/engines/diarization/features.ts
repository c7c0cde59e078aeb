import Meyda from "meyda";
import type { Pcm16 } from "./pcm";
import { logPitchFrames, median, PITCH_HOP } from "./pitch";
import type { SpeechRegion } from "./silero-vad";

/**
 * Voice features for speaker clustering. MFCCs (Meyda: Hann window, 26 mel bands, DCT) are taken
 * over 32 ms frames every 16 ms inside speech; a window of `windowSec` (stepped by `hopSec`, never
 * crossing a region's edge, a shorter region giving one window of its own length) is described by
 * the mean and standard deviation of each coefficient c1…c12 over its frames. c0 (overall level)
 * is left out so loudness does not split a speaker; the means carry the vocal tract's spectral
 * envelope, the deviations how much it moves. The last value is the median log pitch of the
 * window's voiced frames (pitch.ts; a window with none takes the recording's median), weighted
 * `pitchWeight` times a standardised MFCC statistic: alone among 25 equal dimensions it was drowned
 * by phonetic noise in the MFCCs (a man and a woman of eSpeak NG split at R² 0.27, one LibriVox
 * reader at 0.27 too); at 4 the man and woman split at 0.55, two voices of one pitch still by their
 * MFCCs, and the reader stays at 0.29 (clustering.ts's threshold is 0.4).
 */
export const MFCC_FRAME = 512;
export const MFCC_HOP = 256;
const COEFFICIENTS = 13;

export interface WindowOptions {
  windowSec: number;
  hopSec: number;
  /** Regions shorter than this carry too little voice to describe; they inherit a neighbour's speaker. */
  minWindowSec: number;
  /** The pitch dimension's weight after standardisation (each MFCC statistic weighs 1). */
  pitchWeight: number;
}

export const DEFAULT_WINDOWS: WindowOptions = { windowSec: 1.5, hopSec: 0.75, minWindowSec: 0.4, pitchWeight: 4 };

/** Per dimension of `FeatureWindow.features`: the 24 MFCC statistics, then pitch. */
export function featureWeights(opts: WindowOptions = DEFAULT_WINDOWS): number[] {
  return [...new Array<number>(2 * (COEFFICIENTS - 1)).fill(1), opts.pitchWeight];
}

export interface FeatureWindow {
  /** Sample indices, end exclusive. */
  start: number;
  end: number;
  features: number[];
}

/** Feature windows over the speech regions, in time order. Checks `signal` once per region. */
export function featureWindows(
  pcm: Pcm16,
  regions: readonly SpeechRegion[],
  signal: AbortSignal,
  opts: WindowOptions = DEFAULT_WINDOWS,
): FeatureWindow[] {
  Meyda.bufferSize = MFCC_FRAME;
  Meyda.sampleRate = pcm.sampleRate;
  Meyda.numberOfMFCCCoefficients = COEFFICIENTS;
  Meyda.windowingFunction = "hanning";
  const win = Math.round(opts.windowSec * pcm.sampleRate);
  const hop = Math.round(opts.hopSec * pcm.sampleRate);
  const minWin = Math.round(opts.minWindowSec * pcm.sampleRate);
  const frame = new Float32Array(MFCC_FRAME);
  const windows: FeatureWindow[] = [];
  for (const region of regions) {
    signal.throwIfAborted();
    const length = region.end - region.start;
    if (length < minWin) continue;
    // One MFCC vector per frame of the region, shared by the overlapping windows.
    const mfcc: number[][] = [];
    for (let at = region.start; at + MFCC_FRAME <= region.end; at += MFCC_HOP) {
      for (let i = 0; i < MFCC_FRAME; i++) frame[i] = pcm.samples[at + i]! / 32768;
      // A list of features makes Meyda answer an object (one feature alone answers the bare array, whatever its typings say).
      mfcc.push((Meyda.extract(["mfcc"], frame)?.mfcc ?? new Array<number>(COEFFICIENTS).fill(0)).slice(1));
    }
    const pitch = logPitchFrames(pcm, region.start, region.end);
    const starts: number[] = [];
    if (length <= win) starts.push(region.start);
    else {
      for (let s = region.start; s + win <= region.end; s += hop) starts.push(s);
      // The last window ends at the region's end, so its tail is described too.
      if (starts.at(-1)! + win < region.end) starts.push(region.end - win);
    }
    for (const s of starts) {
      const e = Math.min(region.end, s + win);
      const first = Math.floor((s - region.start) / MFCC_HOP);
      const last = Math.max(first + 1, Math.floor((e - MFCC_FRAME - region.start) / MFCC_HOP) + 1);
      const f0 = median(pitch.slice(Math.floor((s - region.start) / PITCH_HOP), Math.ceil((e - region.start) / PITCH_HOP)));
      windows.push({ start: s, end: e, features: [...meanAndDeviation(mfcc.slice(first, last)), f0] });
    }
  }
  const fill = median(windows.map((w) => w.features.at(-1)!));
  for (const w of windows) if (!Number.isFinite(w.features.at(-1))) w.features[w.features.length - 1] = Number.isFinite(fill) ? fill : 0;
  return windows;
}

function meanAndDeviation(vectors: readonly number[][]): number[] {
  const dims = COEFFICIENTS - 1;
  const mean = new Array<number>(dims).fill(0);
  const sq = new Array<number>(dims).fill(0);
  for (const v of vectors) for (let d = 0; d < dims; d++) mean[d]! += v[d]! / vectors.length;
  for (const v of vectors) for (let d = 0; d < dims; d++) sq[d]! += (v[d]! - mean[d]!) ** 2 / vectors.length;
  return [...mean, ...sq.map(Math.sqrt)];
}

/** Each dimension scaled to zero mean and unit variance over the recording's windows, then by its weight (1 when absent). */
export function standardise(rows: readonly number[][], weights: readonly number[] = []): number[][] {
  if (rows.length === 0) return [];
  const dims = rows[0]!.length;
  const mean = new Array<number>(dims).fill(0);
  const sd = new Array<number>(dims).fill(0);
  for (const r of rows) for (let d = 0; d < dims; d++) mean[d]! += r[d]! / rows.length;
  for (const r of rows) for (let d = 0; d < dims; d++) sd[d]! += (r[d]! - mean[d]!) ** 2 / rows.length;
  return rows.map((r) => r.map((x, d) => (sd[d]! > 1e-9 ? ((x - mean[d]!) / Math.sqrt(sd[d]!)) * (weights[d] ?? 1) : 0)));
}
