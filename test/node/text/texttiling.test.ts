import { describe, expect, it } from "vitest";
import { textTiling } from "../../../gpu-runner/engines/text/texttiling";
import { analyse } from "../../../gpu-runner/engines/text/analysis";
import { COOKING, FOOTBALL, TECHNOLOGY, VIDEO_GAME, concatenated } from "../../support/text-fixtures";

/** Units as the engine passes them: one per segment (here one sentence each), its content-word stems. */
const units = (...talks: readonly (readonly string[])[]): string[][] => analyse(concatenated(...talks), "en").segmentTerms;

/** The unit index a boundary opens (gap g lies before unit g + 1). */
const opens = (gap: number): number => gap + 1;

/** Where each talk after the first begins, in units. */
const joins = (...talks: readonly (readonly string[])[]): number[] =>
  talks.slice(1).map((_, i) => talks.slice(0, i + 1).reduce((n, t) => n + t.length, 0));

describe("textTiling", () => {
  it.each([
    ["cooking", "football", COOKING, FOOTBALL],
    ["football", "technology", FOOTBALL, TECHNOLOGY],
    ["technology", "video game", TECHNOLOGY, VIDEO_GAME],
  ])("finds its deepest boundary where a %s talk gives way to a %s talk (within one unit)", (_a, _b, first, second) => {
    const t = textTiling(units(first, second));
    const [join] = joins(first, second);
    expect(Math.abs(opens(t.boundaries[0] ?? -9) - (join ?? 0))).toBeLessThanOrEqual(1);
  });

  it("finds its two deepest boundaries near the joins of three different talks", () => {
    const talks = [VIDEO_GAME, COOKING, TECHNOLOGY];
    const found = textTiling(units(...talks))
      .boundaries.slice(0, 2)
      .map(opens);
    for (const join of joins(...talks)) expect(found.some((b) => Math.abs(b - join) <= 1)).toBe(true);
  });

  it("scores each gap between adjacent units with a cohesion in 0..1", () => {
    const t = textTiling(units(COOKING, FOOTBALL));
    expect(t.gapScores).toHaveLength(COOKING.length + FOOTBALL.length - 1);
    for (const s of t.gapScores) {
      expect(s).toBeGreaterThanOrEqual(0);
      expect(s).toBeLessThanOrEqual(1);
    }
  });

  it("keeps only valleys deeper than the liberal cutoff (mean − sd / 2 of the depth scores)", () => {
    const t = textTiling(units(COOKING, FOOTBALL));
    for (const g of t.boundaries) expect(t.depthScores[g]).toBeGreaterThan(t.cutoff);
  });

  it("proposes no boundary where either block is less than half full (near the ends of the text)", () => {
    const t = textTiling([["zebra"], ...Array.from({ length: 12 }, () => ["rice", "stock"])], { blockTokens: 10 });
    expect(t.gapScores[0]).toBeLessThan(Math.min(...t.gapScores.slice(2)));
    expect(t.boundaries).not.toContain(0);
  });

  it("has no gap to score with fewer than two units", () => {
    expect(textTiling([])).toEqual({ gapScores: [], depthScores: [], boundaries: [], cutoff: 0 });
    expect(textTiling([["risotto"]]).boundaries).toEqual([]);
  });

  it("finds no boundary where the text never changes", () => {
    expect(textTiling(Array.from({ length: 12 }, () => ["rice", "stock", "butter"])).boundaries).toEqual([]);
  });
});
