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
 * window's voiced frames (pitch.ts; a window with none takes the recording's median).
 *
 * `standardise` scales each MFCC statistic to unit variance over the recording, but pitch by a fixed
 * unit, `pitchUnit` (a log-pitch difference of 0.033, 3.3 % or about 0.6 semitone, counts as much
 * as one standard deviation of an MFCC statistic): what tells two people apart is how far apart
 * their pitches are, not how they compare with the recording's spread, which for one speaker is
 * intonation alone. Measured on the project's recordings (Ward root split, clustering.ts splits at
 * R² 0.4): MFCCs alone split a man and a woman of eSpeak NG at 0.27, no better than one LibriVox
 * reader (0.26); pitch standardised like the MFCCs and weighted 4 took the pair to 0.55 and the
 * reader to 0.34; with the fixed unit the pair splits at 0.80, the reader stays at 0.26.
 */
export const MFCC_FRAME = 512;
export const MFCC_HOP = 256;
const COEFFICIENTS = 13;

export interface WindowOptions {
  windowSec: number;
  hopSec: number;
  /** Regions shorter than this carry too little voice to describe; they inherit a neighbour's speaker. */
  minWindowSec: number;
  /** The natural-log pitch difference that weighs as one standard deviation of an MFCC statistic; Infinity leaves pitch out. */
  pitchUnit: number;
}

export const DEFAULT_WINDOWS: WindowOptions = { windowSec: 1.5, hopSec: 0.75, minWindowSec: 0.4, pitchUnit: 0.033 };

/** Per dimension of `FeatureWindow.features`, the fixed unit `standardise` scales it by: none for the 24 MFCC statistics, then pitch's. */
export function featureUnits(opts: WindowOptions = DEFAULT_WINDOWS): (number | undefined)[] {
  return [...new Array<undefined>(2 * (COEFFICIENTS - 1)).fill(undefined), opts.pitchUnit];
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

/** Each dimension centred on the recording's mean, then divided by its fixed unit where `units` gives one, else by its standard deviation. */
export function standardise(rows: readonly number[][], units: readonly (number | undefined)[] = []): number[][] {
  if (rows.length === 0) return [];
  const dims = rows[0]!.length;
  const mean = new Array<number>(dims).fill(0);
  const sd = new Array<number>(dims).fill(0);
  for (const r of rows) for (let d = 0; d < dims; d++) mean[d]! += r[d]! / rows.length;
  for (const r of rows) for (let d = 0; d < dims; d++) sd[d]! += (r[d]! - mean[d]!) ** 2 / rows.length;
  const scale = mean.map((_, d) => units[d] ?? (sd[d]! > 1e-9 ? Math.sqrt(sd[d]!) : Infinity));
  return rows.map((r) => r.map((x, d) => (x - mean[d]!) / scale[d]!));
}
