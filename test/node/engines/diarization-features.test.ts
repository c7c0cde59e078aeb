import { describe, expect, it } from "vitest";
import { DEFAULT_WINDOWS, featureUnits, standardise } from "../../../gpu-runner/engines/diarization/features";

/** How feature windows are put on one scale before clustering (gpu-runner/engines/diarization/features.ts). */
describe("diarization feature scaling", () => {
  it("scales a dimension without a unit to zero mean and unit variance over the recording", () => {
    const scaled = standardise([[1], [3], [5], [7]]).map((r) => r[0]!);
    expect(scaled.reduce((a, b) => a + b, 0)).toBeCloseTo(0);
    expect(scaled.reduce((a, b) => a + b * b, 0) / scaled.length).toBeCloseTo(1);
  });

  it("divides a dimension with a fixed unit by that unit, however narrow its spread in the recording", () => {
    // One speaker whose pitch wavers by 1 %: small against a 3.3 % unit, where unit variance would make it as large as any MFCC statistic.
    const pitch = [Math.log(120), Math.log(121.2), Math.log(120), Math.log(121.2)];
    const scaled = standardise(
      pitch.map((p) => [p]),
      [0.033],
    ).map((r) => r[0]!);
    expect(Math.max(...scaled.map(Math.abs))).toBeLessThan(0.2);
  });

  it("gives the 24 MFCC statistics no unit and pitch the configured one", () => {
    const units = featureUnits();
    expect(units).toHaveLength(25);
    expect(units.slice(0, 24).every((u) => u === undefined)).toBe(true);
    expect(units[24]).toBe(DEFAULT_WINDOWS.pitchUnit);
  });

  it("leaves a dimension out (all zeros) when its unit is infinite or it never varies", () => {
    expect(
      standardise(
        [
          [1, 4],
          [2, 4],
          [3, 4],
        ],
        [Infinity],
      )
        .flat()
        .every((x) => x === 0),
    ).toBe(true);
  });
});
