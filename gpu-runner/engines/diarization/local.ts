import { StepFailure } from "../../../contracts/step-failure";
import { clusterWindows, DEFAULT_CLUSTERING, type ClusteringOptions } from "./clustering";
import { DEFAULT_WINDOWS, featureUnits, featureWindows, standardise, type WindowOptions } from "./features";
import type { Diarization, DiarizationEngine, DiarizeRequest } from "./interface";
import { readPcm16Wav } from "./pcm";
import { DEFAULT_SMOOTHING, turnsFromWindows, type SmoothingOptions } from "./smoothing";
import { DEFAULT_VAD, speechProbabilities, speechRegions, type VadOptions } from "./silero-vad";
import { normaliseTurns } from "./turns";

/**
 * Speaker diarization on the runner's CPU with no speaker-embedding model (none ships offline), by
 * the classical recipe:
 *
 * 1. Voice activity: Silero VAD v5 (bundled ONNX weights) marks speech regions (silero-vad.ts).
 * 2. Features: 12 MFCCs (c1–c12) every 16 ms inside speech, summarised per 1.5 s window stepped by
 *    0.75 s as their means and standard deviations (24 values), and the window's median pitch
 *    (autocorrelation, pitch.ts); each MFCC statistic standardised over the recording, pitch
 *    scaled by a fixed unit of 3.3 % (features.ts).
 * 3. Clustering: Ward agglomerative clustering; a cluster is split while its split explains at least
 *    40% of its own variance, the count clamped into [minSpeakers, maxSpeakers] (clustering.ts).
 * 4. Turns: every instant of speech takes the speaker of the nearest window centre; flickers
 *    shorter than 1 s join their neighbour; labels become SPEAKER_NN by first appearance
 *    (smoothing.ts, turns.ts).
 *
 * What it can and cannot do (bench/diarization.ts): voices whose pitch differs (a man and a woman,
 * two women 30 Hz apart) are told apart well, overlapped turns and back-channels included; voices
 * of the same pitch that differ only in timbre usually merge into one speaker (two eSpeak NG men),
 * as do two of three panel voices sharing a pitch. Overlapped speech goes to one speaker, and a
 * back-channel under 1 s inside another speaker's speech goes to that speaker. A speaker with less
 * than about 3 s of speech in the recording is not found unless minSpeakers asks for it.
 */
// The method changed (pitch joined the features): a new model name, so results say which method made them.
export const LOCAL_MODEL = "silero-vad-v5+mfcc-pitch-ahc";

export interface LocalDiarizationOptions {
  vad: VadOptions;
  windows: WindowOptions;
  clustering: ClusteringOptions;
  smoothing: SmoothingOptions;
}

export const DEFAULT_LOCAL_OPTIONS: LocalDiarizationOptions = {
  vad: DEFAULT_VAD,
  windows: DEFAULT_WINDOWS,
  clustering: DEFAULT_CLUSTERING,
  smoothing: DEFAULT_SMOOTHING,
};

/** Same-speaker turns closer than this are one turn: a breath is not a change of turn. */
const JOIN_GAP_SEC = 0.25;

export class LocalDiarizationEngine implements DiarizationEngine {
  readonly engine = "local-mfcc";
  readonly model = LOCAL_MODEL;

  constructor(private readonly opts: LocalDiarizationOptions = DEFAULT_LOCAL_OPTIONS) {}

  async diarize(req: DiarizeRequest): Promise<Diarization> {
    req.signal.throwIfAborted();
    const pcm = await readPcm16Wav(req.audioPath);
    let probs: Float32Array;
    try {
      probs = await speechProbabilities(pcm, req.signal);
    } catch (err) {
      if (req.signal.aborted) throw req.signal.reason;
      throw new StepFailure("processing_failed", `${this.engine} (${this.model}): voice activity failed: ${String(err)}`, true);
    }
    const regions = speechRegions(probs, pcm.samples.length, pcm.sampleRate, this.opts.vad);
    const windows = featureWindows(pcm, regions, req.signal, this.opts.windows);
    const labels = clusterWindows(
      standardise(
        windows.map((w) => w.features),
        featureUnits(this.opts.windows),
      ),
      { minSpeakers: req.minSpeakers, maxSpeakers: req.maxSpeakers },
      this.opts.clustering,
    );
    req.signal.throwIfAborted();
    return normaliseTurns(turnsFromWindows(regions, windows, labels, pcm.sampleRate, this.opts.smoothing), JOIN_GAP_SEC);
  }
}
