import { randomUUID } from "node:crypto";
import path from "node:path";
import { decodeMono, type TimeRange } from "./audio";
import { scratchRoot } from "../../task-scope";

/**
 * Measures a speaker from audio: median F0 and its spread, syllable rate and seconds of speech.
 * What a local voice profile is matched to, and what a dubbed segment is checked against.
 *
 * - Pitch: YIN (de Cheveigné & Kawahara 2002, "YIN, a fundamental frequency estimator for speech
 *   and music"): the cumulative-mean-normalised difference function, the first dip under an
 *   absolute threshold (0.15), parabolic interpolation, 25 ms windows every 10 ms, 60–500 Hz. Only
 *   frames inside speech are tracked. Octave jumps are dropped afterwards: frames more than 0.9
 *   octave from the first median are not counted.
 * - Syllable rate: syllable nuclei as in de Jong & Wempe (2009, "Praat script to detect syllable
 *   nuclei and measure speech rate automatically"): peaks of the smoothed intensity contour above
 *   the silence threshold, separated by a dip of at least 2 dB, and voiced. Divided by seconds of
 *   speech (pauses of 0.3 s or more excluded), so it is an articulation rate, comparable between a
 *   speaker and a synthetic voice whatever their pauses.
 * - Speech: frames within 30 dB of the loud end of the recording (99th percentile) and at least
 *   6 dB above its floor (10th percentile; 10 dB under the peak at most, for audio without pauses),
 *   and never under -60 dBFS;
 *   gaps under 0.3 s bridged, bursts under 50 ms dropped.
 *
 * No npm pitch tracker is installed in the project (meyda has no F0), so YIN is written here; it is
 * short and its behaviour is pinned by tests on tones and on eSpeak NG speech of known pitch and rate.
 */
export interface VoiceMeasurements {
  /** Median F0 of voiced frames; null when fewer than 0.3 s were voiced. */
  f0MedianHz: number | null;
  /** Interquartile range of voiced-frame F0, in semitones; null with the median. */
  f0SpreadSemitones: number | null;
  /** Syllable nuclei per second of speech; null with under 0.5 s of speech. */
  syllablesPerSec: number | null;
  speechSec: number;
  voicedSec: number;
  /** Audio looked at (after ranges and the cap). */
  analysedSec: number;
}

export interface MeasureOptions {
  /** Only these ranges of the file (source time), e.g. one speaker's turns. */
  ranges?: readonly TimeRange[];
  /** At most this much audio is analysed (default 120 s: the median settles long before). */
  maxSec?: number;
  signal: AbortSignal;
  /** Where the decoded samples pass through (default the OS temp dir). */
  scratchDir?: string;
}

export const ANALYSIS_SAMPLE_RATE = 16_000;
const HOP_SEC = 0.01;
const ENERGY_WINDOW_SEC = 0.02;
const YIN_WINDOW_SEC = 0.025;
const YIN_THRESHOLD = 0.15;
/** Looser than the pitch threshold: a short fast vowel is still voiced though its window straddles a transition. */
const NUCLEUS_APERIODICITY = 0.35;
const F0_MIN = 60;
const F0_MAX = 500;
const SILENCE_BELOW_PEAK_DB = 30;
const SILENCE_ABOVE_FLOOR_DB = 6;
/** Nothing quieter than this (dBFS) is speech, whatever the recording's range. */
const SILENCE_ABSOLUTE_DB = -60;
const BRIDGE_PAUSE_SEC = 0.3;
const MIN_BURST_SEC = 0.05;
const MIN_DIP_DB = 2;
const SMOOTH_FRAMES = 3;

export async function measureVoice(wavPath: string, opts: MeasureOptions): Promise<VoiceMeasurements> {
  const samples = await decodeMono(wavPath, {
    sampleRate: ANALYSIS_SAMPLE_RATE,
    ...(opts.ranges ? { ranges: opts.ranges } : {}),
    maxSec: opts.maxSec ?? 120,
    signal: opts.signal,
    scratchPath: path.join(opts.scratchDir ?? scratchRoot(), `voice-${randomUUID()}.f32`),
  });
  opts.signal.throwIfAborted();
  return analyseSamples(samples, ANALYSIS_SAMPLE_RATE);
}

/** The measurements of mono samples (pure: what measureVoice runs after decoding). */
export function analyseSamples(samples: Float32Array, sampleRate: number): VoiceMeasurements {
  const hop = Math.round(HOP_SEC * sampleRate);
  const frames = Math.floor(samples.length / hop);
  const db = intensityDb(samples, sampleRate, hop, frames);
  const speech = speechFrames(db, hop / sampleRate);
  const speechCount = speech.reduce((n, s) => n + (s ? 1 : 0), 0);
  const speechSec = speechCount * HOP_SEC;

  const yin = new Yin(samples, sampleRate);
  const f0 = new Float64Array(frames);
  const periodic = new Array<boolean>(frames).fill(false);
  for (let i = 0; i < frames; i++) {
    if (!speech[i]) continue;
    const frame = yin.at(i * hop + hop / 2);
    f0[i] = frame.aperiodicity < YIN_THRESHOLD ? frame.f0 : 0;
    periodic[i] = frame.aperiodicity < NUCLEUS_APERIODICITY;
  }

  const voiced = [...f0].filter((v) => v > 0);
  const pitch = pitchStats(voiced);
  const nuclei = syllableNuclei(db, speech, periodic);
  return {
    f0MedianHz: voiced.length * HOP_SEC >= 0.3 ? pitch.median : null,
    f0SpreadSemitones: voiced.length * HOP_SEC >= 0.3 ? pitch.iqrSemitones : null,
    syllablesPerSec: speechSec >= 0.5 ? nuclei / speechSec : null,
    speechSec: round(speechSec, 2),
    voicedSec: round(voiced.length * HOP_SEC, 2),
    analysedSec: round(samples.length / sampleRate, 2),
  };
}

/** Semitones from `fromHz` to `toHz`. */
export function semitones(fromHz: number, toHz: number): number {
  return 12 * Math.log2(toHz / fromHz);
}

function intensityDb(samples: Float32Array, sampleRate: number, hop: number, frames: number): Float64Array {
  const half = Math.round((ENERGY_WINDOW_SEC * sampleRate) / 2);
  const db = new Float64Array(frames);
  for (let i = 0; i < frames; i++) {
    const centre = i * hop + hop / 2;
    const from = Math.max(0, Math.floor(centre - half));
    const to = Math.min(samples.length, Math.floor(centre + half));
    let sum = 0;
    for (let j = from; j < to; j++) sum += samples[j]! * samples[j]!;
    db[i] = 10 * Math.log10(sum / Math.max(1, to - from) + 1e-12);
  }
  return db;
}

function speechFrames(db: Float64Array, hopSec: number): boolean[] {
  if (db.length === 0) return [];
  const sorted = [...db].sort((a, b) => a - b);
  const peak = quantile(sorted, 0.99);
  const floor = quantile(sorted, 0.1);
  // A recording without pauses (turns joined end to end, a steady tone) has its floor at its peak: then 10 dB under the peak.
  const threshold = Math.max(peak - SILENCE_BELOW_PEAK_DB, Math.min(floor + SILENCE_ABOVE_FLOOR_DB, peak - 10), SILENCE_ABSOLUTE_DB);
  const on = [...db].map((v) => v > threshold);
  // Bridge short pauses (stop closures, breaths between words), then drop clicks.
  const bridge = Math.round(BRIDGE_PAUSE_SEC / hopSec);
  let last = -1;
  for (let i = 0; i < on.length; i++) {
    if (!on[i]) continue;
    if (last >= 0 && i - last > 1 && i - last <= bridge) for (let j = last + 1; j < i; j++) on[j] = true;
    last = i;
  }
  const minBurst = Math.round(MIN_BURST_SEC / hopSec);
  for (let i = 0; i < on.length;) {
    if (!on[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < on.length && on[j]) j++;
    if (j - i < minBurst) for (let k = i; k < j; k++) on[k] = false;
    i = j;
  }
  return on;
}

/** Counts intensity peaks within speech that stand 2 dB above the dip before the next peak and are voiced. */
function syllableNuclei(db: Float64Array, speech: boolean[], periodic: boolean[]): number {
  const smooth = new Float64Array(db.length);
  const r = Math.floor(SMOOTH_FRAMES / 2);
  for (let i = 0; i < db.length; i++) {
    let s = 0;
    let n = 0;
    for (let j = Math.max(0, i - r); j <= Math.min(db.length - 1, i + r); j++) {
      s += db[j]!;
      n++;
    }
    smooth[i] = s / n;
  }
  const peaks: number[] = [];
  for (let i = 1; i < smooth.length - 1; i++) {
    if (speech[i] && smooth[i]! > smooth[i - 1]! && smooth[i]! >= smooth[i + 1]!) peaks.push(i);
  }
  // Merge neighbours without a real dip between them, keeping the louder (de Jong & Wempe's dip rule).
  const kept: number[] = [];
  for (const p of peaks) {
    const prev = kept.at(-1);
    if (prev === undefined) {
      kept.push(p);
      continue;
    }
    let dip = Infinity;
    for (let j = prev; j <= p; j++) dip = Math.min(dip, smooth[j]!);
    const gapped = speech.slice(prev, p + 1).some((s) => !s);
    if (!gapped && Math.min(smooth[prev]!, smooth[p]!) - dip < MIN_DIP_DB) {
      if (smooth[p]! > smooth[prev]!) kept[kept.length - 1] = p;
    } else kept.push(p);
  }
  const voicedNear = (i: number) => {
    for (let j = Math.max(0, i - 2); j <= Math.min(periodic.length - 1, i + 2); j++) if (periodic[j]) return true;
    return false;
  };
  return kept.filter(voicedNear).length;
}

function pitchStats(voiced: number[]): { median: number | null; iqrSemitones: number | null } {
  if (voiced.length === 0) return { median: null, iqrSemitones: null };
  const first = quantile(
    [...voiced].sort((a, b) => a - b),
    0.5,
  );
  const kept = voiced.filter((v) => Math.abs(Math.log2(v / first)) < 0.9).sort((a, b) => a - b);
  if (kept.length === 0) return { median: round(first, 1), iqrSemitones: 0 };
  const median = quantile(kept, 0.5);
  return { median: round(median, 1), iqrSemitones: round(semitones(quantile(kept, 0.25), quantile(kept, 0.75)), 2) };
}

/**
 * YIN over one signal; `at(centre)` answers the best period's F0 at a sample position and its
 * aperiodicity (the normalised difference at the dip: near 0 periodic, near 1 noise).
 */
class Yin {
  private readonly window: number;
  private readonly tauMin: number;
  private readonly tauMax: number;
  private readonly d: Float64Array;

  constructor(
    private readonly x: Float32Array,
    private readonly sampleRate: number,
  ) {
    this.window = Math.round(YIN_WINDOW_SEC * sampleRate);
    this.tauMin = Math.floor(sampleRate / F0_MAX);
    this.tauMax = Math.ceil(sampleRate / F0_MIN);
    this.d = new Float64Array(this.tauMax + 2);
  }

  at(centre: number): { f0: number; aperiodicity: number } {
    const { x, window: w, tauMax, d } = this;
    const start = Math.round(centre - (w + tauMax) / 2);
    if (start < 0 || start + w + tauMax + 2 > x.length) return { f0: 0, aperiodicity: 1 };
    // Difference function d(τ) = Σ (x_j − x_{j+τ})², then its cumulative-mean normalisation.
    d[0] = 1;
    let running = 0;
    for (let tau = 1; tau <= tauMax + 1; tau++) {
      let sum = 0;
      for (let j = start; j < start + w; j++) {
        const diff = x[j]! - x[j + tau]!;
        sum += diff * diff;
      }
      running += sum;
      d[tau] = running > 0 ? (sum * tau) / running : 1;
    }
    // The first dip under the threshold, else the deepest dip (YIN's step 4).
    let tau = this.tauMin;
    while (tau <= tauMax && d[tau]! >= YIN_THRESHOLD) tau++;
    if (tau > tauMax) {
      tau = this.tauMin;
      for (let t = this.tauMin; t <= tauMax; t++) if (d[t]! < d[tau]!) tau = t;
    }
    while (tau + 1 <= tauMax && d[tau + 1]! < d[tau]!) tau++;
    // Parabolic interpolation around the dip for sub-sample period precision.
    const a = d[tau - 1]!;
    const b = d[tau]!;
    const c = d[tau + 1]!;
    const denom = a - 2 * b + c;
    const shift = denom !== 0 ? (0.5 * (a - c)) / denom : 0;
    const period = tau + Math.max(-1, Math.min(1, shift));
    return { f0: this.sampleRate / period, aperiodicity: b };
  }
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
