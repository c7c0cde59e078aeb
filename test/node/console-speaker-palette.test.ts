import { describe, expect, it } from "vitest";
import { contrastRatio, MIN_CONTRAST } from "../../gpu-runner/engines/image/local-compositor";
import { CONSOLE_CSS } from "../../worker/console/styles";
import { SPEAKER_BACKGROUNDS, SPEAKER_PALETTE, speakerClass, speakerColourIndex } from "../../worker/console/speaker-colours";

/** The console's speaker colours (worker/console/speaker-colours.ts): readable as text wherever a speaker's name is drawn. */

const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

describe("the speaker palette", () => {
  it.each(SPEAKER_PALETTE.flatMap((colour) => SPEAKER_BACKGROUNDS.map((bg) => [colour, bg] as const)))(
    "%s has at least WCAG AA text contrast (4.5:1) on %s",
    (colour, bg) => {
      expect(contrastRatio(rgb(colour), rgb(bg))).toBeGreaterThanOrEqual(MIN_CONTRAST);
    },
  );

  it("the backgrounds checked are the stylesheet's: the page, the panel and the played segment", () => {
    expect(CONSOLE_CSS).toContain("--bg:#fff;");
    expect(CONSOLE_CSS).toContain("--panel:#f4f5f7;");
    expect(CONSOLE_CSS).toMatch(/ol\.segments li\.active\{background:#e3edff;/);
    expect(SPEAKER_BACKGROUNDS).toEqual(["#ffffff", "#f4f5f7", "#e3edff"]);
  });

  it("has no colour twice", () => {
    expect(new Set(SPEAKER_PALETTE).size).toBe(SPEAKER_PALETTE.length);
  });

  it("gives a speaker the slot of its label's number, wrapping after the last colour", () => {
    expect(["SPEAKER_00", "SPEAKER_01", "SPEAKER_07", "SPEAKER_08", "SPEAKER_13"].map(speakerColourIndex)).toEqual([0, 1, 7, 0, 5]);
    expect(speakerClass("SPEAKER_03")).toBe("spk-3");
  });
});
