import { describe, expect, it } from "vitest";
import type { FrameObservation } from "../../../gpu-runner/engines/vision/interface";
import {
  candidateTimes,
  diverseOrder,
  faceQuality,
  pickDiverse,
  scoreCandidates,
  unusable,
  type ImageMeasures,
} from "../../../gpu-runner/services/thumbnail/frames";

const measures = (o: Partial<ImageMeasures> = {}): ImageMeasures => ({
  sharpness: 400,
  brightness: 120,
  contrast: 50,
  clipped: 0,
  hash: "0".repeat(64),
  ...o,
});
const hash = (ones: number) => "1".repeat(ones) + "0".repeat(64 - ones);
const face = (o: Partial<FrameObservation["faces"][number]> = {}) => ({
  box: { x: 0.4, y: 0.2, width: 0.2, height: 0.3 },
  score: 0.9,
  mouthOpen: null,
  yawDeg: 0,
  eyesOpen: true,
  ...o,
});
const frame = (t: number, m: Partial<ImageMeasures> = {}, faces: FrameObservation["faces"] = []) => ({
  t,
  path: `/f/${t}.jpg`,
  measures: measures(m),
  observation: { t, faces, bodies: [], salient: null },
});

describe("candidate times", () => {
  it("takes each scene 40% in, never within half a second of its cut", () => {
    const times = candidateTimes(30, [10, 20], 3);
    expect(times).toEqual([4, 14, 24]);
  });

  it("fills long scenes with an even grid, at most max, a second or more apart", () => {
    const times = candidateTimes(60, [], 8);
    expect(times).toHaveLength(8);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(1);
  });

  it("leaves out the first and last 3% (fades, end screens)", () => {
    const times = candidateTimes(100, [], 20);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(2);
    expect(Math.max(...times)).toBeLessThanOrEqual(98);
  });

  it("spreads many short scenes over the whole video when there are more than max", () => {
    const cuts = Array.from({ length: 99 }, (_, i) => i + 1);
    const times = candidateTimes(100, cuts, 10);
    expect(times).toHaveLength(10);
    expect(times[0]!).toBeLessThan(10);
    expect(times.at(-1)!).toBeGreaterThan(90);
  });
});

describe("unusable frames", () => {
  it.each([
    ["black", measures({ brightness: 5, contrast: 2 })],
    ["blown out", measures({ brightness: 250 })],
    ["blank", measures({ contrast: 5 })],
    ["blurred", measures({ sharpness: 30 })],
  ])("a %s frame is rejected", (reason, m) => {
    expect(unusable(m, 400)).toBe(reason);
  });

  it("a sharp, well exposed frame is usable", () => {
    expect(unusable(measures(), 400)).toBeNull();
  });
});

describe("face quality", () => {
  it("a frontal face scores above the same face turned away", () => {
    const ahead = faceQuality({ t: 0, faces: [face()], bodies: [], salient: null });
    const turned = faceQuality({ t: 0, faces: [face({ yawDeg: 50 })], bodies: [], salient: null });
    expect(ahead).toBeGreaterThan(turned);
  });

  it("closed eyes cost, a low-confidence face counts for nothing", () => {
    expect(faceQuality({ t: 0, faces: [face({ eyesOpen: false })], bodies: [], salient: null })).toBeLessThan(
      faceQuality({ t: 0, faces: [face()], bodies: [], salient: null }),
    );
    expect(faceQuality({ t: 0, faces: [face({ score: 0.3 })], bodies: [], salient: null })).toBe(0);
  });
});

describe("picking", () => {
  it("a frame with a good face outranks an equally sharp one without", () => {
    const [a, b] = scoreCandidates([frame(1), frame(2, {}, [face()])]);
    expect(b!.total).toBeGreaterThan(a!.total);
  });

  it("never picks a rejected frame, even when short of picks", () => {
    const scored = scoreCandidates([frame(1, { brightness: 3, contrast: 1 }), frame(5)]);
    expect(pickDiverse(scored, 3).map((c) => c.t)).toEqual([5]);
  });

  it("prefers a different-looking frame over a near duplicate with a higher score", () => {
    const scored = scoreCandidates([
      frame(1, { hash: hash(0) }, [face()]),
      frame(3, { hash: hash(2) }, [face()]),
      frame(8, { hash: hash(40) }),
    ]);
    expect(pickDiverse(scored, 2).map((c) => c.t)).toEqual([1, 8]);
  });

  it("takes near duplicates only when nothing else is left", () => {
    const scored = scoreCandidates([frame(1, { hash: hash(0) }), frame(3, { hash: hash(2) })]);
    expect(pickDiverse(scored, 2).map((c) => c.t)).toEqual([1, 3]);
  });

  it("orders cover frames so neighbours are different shots", () => {
    const ranked = [frame(1, { hash: hash(0) }), frame(2, { hash: hash(1) }), frame(3, { hash: hash(40) })];
    expect(diverseOrder(ranked).map((c) => c.t)).toEqual([1, 3, 2]);
  });
});
