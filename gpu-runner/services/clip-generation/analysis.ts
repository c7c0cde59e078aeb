import type { AnalyzeOptions, FrameObservation, SampledFrame, VisionEngine } from "../../engines/vision/interface";

/**
 * How the vision pass keeps pace with the decode. The ingest samples a long source sparsely (at most
 * `maxFrames` frames, an even stride of the `visionFps` grid) and hands each frame to the engine as
 * soon as ffmpeg has written it, so the detectors work on one core while the decode uses the other;
 * the chosen moments are then analysed at the full rate (`sampleMoment` in media.ts).
 */

export interface AnalysisSampling {
  /** Every `stride`-th frame of the visionFps grid; 1: every frame (dense already, no second pass needed). */
  stride: number;
  /** Frames per second the ingest samples: visionFps / stride, as a rational for ffmpeg's fps filter. */
  rate: { num: number; den: number };
}

export function analysisSampling(durationSec: number, visionFps: number, maxFrames: number): AnalysisSampling {
  // The fps filter emits a frame at 0 and one per period after it, up to the end.
  const denseFrames = Math.floor(Math.max(0, durationSec) * visionFps) + 1;
  const stride = Math.max(1, Math.ceil(denseFrames / Math.max(1, maxFrames)));
  return { stride, rate: { num: visionFps, den: stride } };
}

export interface FrameStream {
  /** Queues a frame, with what to look for on it; frames are analysed one at a time, in the order pushed. */
  push(frame: SampledFrame, want: Omit<AnalyzeOptions, "signal">): void;
  /** Every observation, in order, once the queue has drained; rejects with the first failure. */
  done(): Promise<FrameObservation[]>;
  /** Milliseconds the engine spent on the frames so far (not counting time waiting for frames). */
  busyMs(): number;
}

/**
 * Analyses frames as they are pushed. A failure stops the queue (later frames are dropped) and is
 * reported by `done`, never as an unhandled rejection in between.
 */
export function analyzeAsProduced(engine: VisionEngine, signal: AbortSignal): FrameStream {
  const out: FrameObservation[] = [];
  let tail: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  let busy = 0;
  return {
    push(frame, want) {
      tail = tail.then(async () => {
        if (failure !== null) return;
        const started = performance.now();
        try {
          out.push(...(await engine.analyze([frame], { ...want, signal })));
        } catch (err) {
          failure = err;
        } finally {
          busy += performance.now() - started;
        }
      });
    },
    async done() {
      await tail;
      if (failure !== null) throw failure;
      return out;
    },
    busyMs: () => busy,
  };
}
