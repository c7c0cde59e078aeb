import { describe, expect, it } from "vitest";
import { CLIP_LAYOUTS } from "../../../contracts/clips";
import { LocalLexiconCategoryEngine } from "../../../gpu-runner/engines/category/local-lexicon";
import { chooseLayout } from "../../../gpu-runner/services/clip-generation/layout";

const visual = { meanFaces: 1, maxFaces: 1, cutsPerMinute: 2, speechShare: 0.8, speakers: 1 };
const CATEGORIES = ["interview", "podcast", "gaming", "education", "presentation", "vlog", "news", "sports"];

describe("layout choice", () => {
  it("keeps the requested layout", () => {
    expect(chooseLayout({ requested: "square_1_1", allowAuto: true, category: "gaming", visual, defaultLayout: "vertical_9_16" })).toEqual({
      layout: "square_1_1",
      reason: "requested",
    });
  });

  it("keeps two people on screen together in frame for an interview", () => {
    const r = chooseLayout({
      requested: null,
      allowAuto: true,
      category: "interview",
      visual: { ...visual, meanFaces: 2 },
      defaultLayout: "vertical_9_16",
    });
    expect(r.layout).toBe("horizontal_in_vertical");
    expect(r.reason).toMatch(/interview/);
  });

  it("follows one talking head with a portrait crop", () => {
    expect(chooseLayout({ requested: null, allowAuto: true, category: "vlog", visual, defaultLayout: "horizontal_16_9" }).layout).toBe(
      "vertical_9_16",
    );
  });

  it("uses the platform default when auto layout is off", () => {
    expect(chooseLayout({ requested: null, allowAuto: false, category: "vlog", visual, defaultLayout: "horizontal_16_9" }).layout).toBe(
      "horizontal_16_9",
    );
  });

  it("never picks a layout outside the plan's supportedLayouts: the default instead, saying why", () => {
    const r = chooseLayout({
      requested: null,
      allowAuto: true,
      category: "vlog",
      visual,
      defaultLayout: "square_1_1",
      supported: ["square_1_1", "horizontal_16_9"],
    });
    expect(r.layout).toBe("square_1_1");
    expect(r.reason).toMatch(/vertical_9_16 is not in this plan's layouts/);
  });

  it("never picks a layout outside supportedLayouts, for any category, face count, default and non-empty plan list", () => {
    const subsets = Array.from({ length: 2 ** CLIP_LAYOUTS.length - 1 }, (_, m) => CLIP_LAYOUTS.filter((_, i) => ((m + 1) >> i) & 1));
    for (const supported of subsets)
      for (const defaultLayout of CLIP_LAYOUTS)
        for (const category of [null, ...CATEGORIES])
          for (const meanFaces of [null, 0, 1, 2])
            for (const allowAuto of [true, false]) {
              const r = chooseLayout({ requested: null, allowAuto, category, visual: { ...visual, meanFaces }, defaultLayout, supported });
              expect(supported, `${category} ${meanFaces} faces, default ${defaultLayout}`).toContain(r.layout);
            }
  });

  it("falls back to the first supported layout when the default is not supported either", () => {
    const r = chooseLayout({
      requested: null,
      allowAuto: true,
      category: "gaming",
      visual,
      defaultLayout: "vertical_9_16",
      supported: ["horizontal_16_9"],
    });
    expect(r.layout).toBe("horizontal_16_9");
  });
});

describe("local category engine", () => {
  const engine = new LocalLexiconCategoryEngine();
  const classify = (text: string, v = visual) =>
    engine.classify({ text, visual: v, categories: CATEGORIES, signal: AbortSignal.timeout(1000) });

  it("recognises gaming talk over a faceless screen", async () => {
    const r = await classify("this boss fight is hard the player needs more loot before the next level and this game map", {
      ...visual,
      meanFaces: 0,
      maxFaces: 0,
      cutsPerMinute: 12,
    });
    expect(r.category).toBe("gaming");
  });

  it("recognises an interview with two people", async () => {
    const r = await classify("welcome thanks for joining me tell us about your career and your background what was the question", {
      ...visual,
      meanFaces: 2,
      maxFaces: 2,
      speakers: 2,
    });
    expect(r.category).toBe("interview");
  });

  it("answers only supported categories, with scores that sum to about one", async () => {
    const r = await engine.classify({ text: "hello", visual, categories: ["vlog", "news"], signal: AbortSignal.timeout(1000) });
    expect(["vlog", "news"]).toContain(r.category);
    expect(Object.values(r.scores).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    expect(r.confidence).toBeGreaterThan(0);
    expect(r.confidence).toBeLessThanOrEqual(1);
  });
});
