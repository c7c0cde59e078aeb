import { describe, expect, it } from "vitest";
import type { FrameObservation } from "../../../gpu-runner/engines/vision/interface";
import { cropExpression, cropXAt, planCrop, targetsOf } from "../../../gpu-runner/services/clip-generation/reframe";

const SRC = { srcW: 1920, srcH: 1080, cropW: 608, deadZone: 0.12, maxPanSpeed: 2, confirmSec: 0.3 };
const face = (cx: number, mouth: number, score = 0.9) => ({
  box: { x: cx - 0.05, y: 0.3, width: 0.1, height: 0.18 },
  score,
  mouthOpen: mouth,
  yawDeg: 0,
  eyesOpen: true,
});
const frames = (n: number, fps: number, faces: (t: number, i: number) => FrameObservation["faces"]): FrameObservation[] =>
  Array.from({ length: n }, (_, i) => ({ t: i / fps, faces: faces(i / fps, i), bodies: [], salient: null }));

/** Mean absolute change of the crop's x per output frame (30 fps) over [0, dur]. */
function meanMotion(pieces: ReturnType<typeof planCrop>, dur: number): number {
  let sum = 0;
  let n = 0;
  for (let t = 1 / 30; t < dur; t += 1 / 30) {
    sum += Math.abs(cropXAt(pieces, t) - cropXAt(pieces, t - 1 / 30));
    n++;
  }
  return sum / n;
}

describe("speaker-following crop", () => {
  it("holds still on a still speaker whose detections jitter: under 2 px of movement per frame on average", () => {
    // Detector jitter of ±1.5 % of the width around 0.4, mouth moving.
    const obs = frames(60, 3, (_t, i) => [face(0.4 + 0.015 * Math.sin(i * 2.1), 0.2 + 0.2 * (i % 2))]);
    const pieces = planCrop(
      targetsOf(obs, () => true),
      [],
      0,
      20,
      SRC,
    );
    expect(meanMotion(pieces, 20)).toBeLessThan(2);
  });

  it("puts the new speaker inside the crop within 1 s of a speaker change in the same shot", () => {
    // Two faces on screen; the left one talks for 10 s, then the right one.
    const obs = frames(60, 3, (t) => [
      face(0.2, t < 10 ? 0.1 + 0.4 * ((t * 3) % 2) : 0.1),
      face(0.8, t >= 10 ? 0.1 + 0.4 * ((t * 3) % 2) : 0.1),
    ]);
    const pieces = planCrop(
      targetsOf(obs, () => true),
      [],
      0,
      20,
      SRC,
    );
    const inside = (t: number, cx: number) => {
      const x = cropXAt(pieces, t);
      return cx * 1920 >= x && cx * 1920 <= x + 608;
    };
    expect(inside(9.5, 0.2)).toBe(true);
    expect(inside(11, 0.8)).toBe(true);
  });

  it("pans at most maxPanSpeed crop widths per second", () => {
    const obs = frames(30, 3, (t) => [face(t < 5 ? 0.15 : 0.85, 0.3)]);
    const pieces = planCrop(
      targetsOf(obs, () => true),
      [],
      0,
      10,
      SRC,
    );
    for (const p of pieces) if (p.x0 !== p.x1) expect(Math.abs(p.x1 - p.x0) / (p.t1 - p.t0)).toBeLessThanOrEqual(2 * 608 + 1e-6);
  });

  it("cuts with a scene cut instead of panning across it", () => {
    const obs = frames(30, 3, (t) => [face(t < 5 ? 0.15 : 0.85, 0.3)]);
    const pieces = planCrop(
      targetsOf(obs, () => true),
      [4.9],
      0,
      10,
      SRC,
    );
    expect(pieces.every((p) => p.x0 === p.x1)).toBe(true);
    expect(cropXAt(pieces, 4.8)).not.toBe(cropXAt(pieces, 5));
  });

  it("falls back to the salient region, then the centre, when there is no face", () => {
    const salient: FrameObservation[] = [{ t: 0, faces: [], bodies: [], salient: { x: 0.6, y: 0.2, width: 0.3, height: 0.3 } }];
    expect(targetsOf(salient, () => true)[0]).toMatchObject({ source: "salient", cx: 0.75 });
    expect(targetsOf([{ t: 0, faces: [], bodies: [], salient: null }], () => true)[0]).toMatchObject({ source: "centre", cx: 0.5 });
  });

  it("stays inside the source frame", () => {
    const obs = frames(9, 3, () => [face(0.99, 0.3)]);
    const pieces = planCrop(
      targetsOf(obs, () => true),
      [],
      0,
      3,
      SRC,
    );
    for (const p of pieces) expect(Math.max(p.x0, p.x1)).toBeLessThanOrEqual(1920 - 608);
  });

  it("writes the path as an ffmpeg expression of t", () => {
    const expr = cropExpression([
      { t0: 0, t1: 1, x0: 100, x1: 100 },
      { t0: 1, t1: 2, x0: 100, x1: 300 },
    ]);
    expect(expr).toMatch(/^if\(lt\(t,1\.000\),100,if\(lt\(t,2\.000\),100\+\(200\)\*/);
  });
});
