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
  /** Queues a frame, with what to look for on it. */
  push(frame: SampledFrame, want: Omit<AnalyzeOptions, "signal">): void;
  /** Every observation, in the order pushed, once all pushed frames are done; rejects with the first failure. Call after the last push. */
  done(): Promise<FrameObservation[]>;
  /** Milliseconds during which at least one frame was being analysed (not counting time waiting for frames). */
  busyMs(): number;
}

/**
 * Analyses frames as they are pushed, keeping as many in flight as the engine analyses at once
 * (`parallelism`, else one at a time). A failure stops the queue (later frames are dropped) and is
 * reported by `done`, never as an unhandled rejection in between.
 */
export function analyzeAsProduced(engine: VisionEngine, signal: AbortSignal): FrameStream {
  const slots = Math.max(1, engine.parallelism ?? 1);
  const out: Array<FrameObservation | undefined> = [];
  const waiting: Array<{ i: number; frame: SampledFrame; want: Omit<AnalyzeOptions, "signal"> }> = [];
  const settled: Array<Promise<void>> = [];
  let inFlight = 0;
  let failure: unknown = null;
  let busy = 0;
  let activeSince = 0;
  const dispatch = () => {
    while (failure === null && inFlight < slots && waiting.length > 0) {
      const { i, frame, want } = waiting.shift()!;
      if (inFlight++ === 0) activeSince = performance.now();
      settled.push(
        engine
          .analyze([frame], { ...want, signal })
          .then(
            ([o]) => {
              out[i] = o;
            },
            (err: unknown) => {
              failure ??= err;
            },
          )
          .finally(() => {
            if (--inFlight === 0) busy += performance.now() - activeSince;
            dispatch();
          }),
      );
    }
  };
  return {
    push(frame, want) {
      waiting.push({ i: out.length, frame, want });
      out.push(undefined);
      dispatch();
    },
    async done() {
      // Frames dispatched while earlier ones settle join `settled`: wait until it stops growing.
      for (let seen = 0; seen < settled.length;) {
        const batch = settled.slice(seen);
        seen = settled.length;
        await Promise.all(batch);
      }
      if (failure !== null) throw failure;
      return out.map((o) => o!);
    },
    busyMs: () => busy + (inFlight > 0 ? performance.now() - activeSince : 0),
  };
}
