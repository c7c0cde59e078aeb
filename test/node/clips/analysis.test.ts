import { describe, expect, it } from "vitest";
import type { AnalyzeOptions, FrameObservation, SampledFrame, VisionEngine } from "../../../gpu-runner/engines/vision/interface";
import { analysisSampling, analyzeAsProduced } from "../../../gpu-runner/services/clip-generation/analysis";

/** Frames the fps filter emits for a source of `sec` seconds at `rate` frames per second (one at 0, one per period). */
const emitted = (sec: number, rate: { num: number; den: number }) => Math.floor((sec * rate.num) / rate.den) + 1;

/** An engine that records what it was asked and answers with an empty observation per frame. */
function recordingEngine(opts: { failOn?: number; delayMs?: number } = {}) {
  const calls: Array<{ frames: SampledFrame[]; options: AnalyzeOptions }> = [];
  const engine: VisionEngine = {
    engine: "recording",
    model: "none",
    async analyze(frames, options) {
      calls.push({ frames: [...frames], options });
      if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
      if (frames.some((f) => f.t === opts.failOn)) throw new Error(`no frame at ${opts.failOn}`);
      return frames.map((f): FrameObservation => ({ t: f.t, faces: [], bodies: [], salient: null }));
    },
    async close() {},
  };
  return { engine, calls };
}

const frameAt = (t: number): SampledFrame => ({ t, path: `/frames/${t}.jpg` });
const signal = () => new AbortController().signal;

describe("analysis sampling", () => {
  it("samples every frame of the visionFps grid when the source fits in maxFrames", () => {
    expect(analysisSampling(90, 3, 300)).toEqual({ stride: 1, rate: { num: 3, den: 1 } });
  });

  it("keeps a long source within maxFrames with an even stride of the grid", () => {
    const s = analysisSampling(600.2, 3, 300);
    expect(s.stride).toBe(7);
    expect(emitted(600.2, s.rate)).toBeLessThanOrEqual(300);
  });

  it("stays within maxFrames at the edge where the source's frames are one more than a multiple of it", () => {
    for (const sec of [100, 199.9, 200, 300]) {
      const s = analysisSampling(sec, 3, 300);
      expect(emitted(sec, s.rate), `${sec} s`).toBeLessThanOrEqual(300);
    }
  });
});

describe("frames analysed as they are produced", () => {
  it("returns one observation per pushed frame, in the order pushed", async () => {
    const { engine } = recordingEngine({ delayMs: 2 });
    const stream = analyzeAsProduced(engine, signal());
    for (const t of [0, 2.5, 5, 7.5]) stream.push(frameAt(t), {});
    expect((await stream.done()).map((o) => o.t)).toEqual([0, 2.5, 5, 7.5]);
  });

  it("asks the engine for what each frame's push asked for, with the stream's signal", async () => {
    const { engine, calls } = recordingEngine();
    const abort = new AbortController();
    const stream = analyzeAsProduced(engine, abort.signal);
    stream.push(frameAt(0), { bodies: true, eyes: false });
    stream.push(frameAt(1), { bodies: false, eyes: false });
    await stream.done();
    expect(calls.map((c) => [c.options.bodies, c.options.eyes, c.options.signal])).toEqual([
      [true, false, abort.signal],
      [false, false, abort.signal],
    ]);
  });

  it("with an engine of one frame at a time, analyses a frame pushed during another after it, never beside it", async () => {
    let running = 0;
    let most = 0;
    const engine: VisionEngine = {
      engine: "slow",
      model: "none",
      async analyze(frames) {
        most = Math.max(most, ++running);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return frames.map((f) => ({ t: f.t, faces: [], bodies: [], salient: null }));
      },
      async close() {},
    };
    const stream = analyzeAsProduced(engine, signal());
    stream.push(frameAt(0), {});
    await new Promise((r) => setTimeout(r, 1));
    stream.push(frameAt(1), {});
    stream.push(frameAt(2), {});
    expect(await stream.done()).toHaveLength(3);
    expect(most).toBe(1);
  });

  it("keeps as many frames in flight as the engine analyses at once, and still answers in push order", async () => {
    let running = 0;
    let most = 0;
    const engine: VisionEngine = {
      engine: "parallel",
      model: "none",
      parallelism: 2,
      async analyze(frames) {
        most = Math.max(most, ++running);
        // Later frames finish first: the order must come from the pushes, not the answers.
        await new Promise((r) => setTimeout(r, 20 - 4 * frames[0]!.t));
        running--;
        return frames.map((f) => ({ t: f.t, faces: [], bodies: [], salient: null }));
      },
      async close() {},
    };
    const stream = analyzeAsProduced(engine, signal());
    for (const t of [0, 1, 2, 3]) stream.push(frameAt(t), {});
    expect((await stream.done()).map((o) => o.t)).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
  });

  it("reports the first failure from done and drops the frames after it", async () => {
    const { engine, calls } = recordingEngine({ failOn: 1 });
    const stream = analyzeAsProduced(engine, signal());
    for (const t of [0, 1, 2]) stream.push(frameAt(t), {});
    await expect(stream.done()).rejects.toThrow("no frame at 1");
    expect(calls.map((c) => c.frames[0]!.t)).toEqual([0, 1]);
  });

  it("holds a failure for done without an unhandled rejection in between", async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const { engine } = recordingEngine({ failOn: 0 });
      const stream = analyzeAsProduced(engine, signal());
      stream.push(frameAt(0), {});
      await new Promise((r) => setTimeout(r, 20));
      expect(unhandled).toEqual([]);
      await expect(stream.done()).rejects.toThrow("no frame at 0");
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("with nothing pushed, is done at once with no observations", async () => {
    const { engine } = recordingEngine();
    expect(await analyzeAsProduced(engine, signal()).done()).toEqual([]);
  });
});
