import { describe, expect, it } from "vitest";
import { FRAME_SEC, MAX_SPANS, mergeSpans, redactionFilter, spansInCut } from "../../gpu-runner/media/redacted-audio";
import { spokenPieces, spokenText } from "../../gpu-runner/services/dubbing/spoken-text";

/** The spans and filter that silence redacted words (gpu-runner/media/redacted-audio.ts), and the text a dub's voice reads. */

const span = (start: number, end: number) => ({ type: "PERSON" as const, start, end });
/** `n` spans of 0.5 s, 1.8 s apart. */
const spaced = (n: number) => Array.from({ length: n }, (_, i) => ({ start: i * 1.8 + 0.2, end: i * 1.8 + 0.7 }));

describe("spans in a cut", () => {
  it("are shifted to the cut's own timeline", () => {
    expect(spansInCut([span(12, 13)], { from: 10, to: 20 })).toEqual([{ start: 2, end: 3 }]);
  });

  it("are clipped to the cut where they cross its edges", () => {
    expect(spansInCut([span(9, 10.5), span(19.5, 21)], { from: 10, to: 20 })).toEqual([
      { start: 0, end: 0.5 },
      { start: 9.5, end: 10 },
    ]);
  });

  it("outside the cut are left out", () => {
    expect(spansInCut([span(2, 3), span(25, 26)], { from: 10, to: 20 })).toEqual([]);
  });

  it("without a cut stay in the media's timeline", () => {
    expect(spansInCut([span(2, 3)])).toEqual([{ start: 2, end: 3 }]);
  });
});

describe("merging", () => {
  it("joins spans that overlap or touch, in time order", () => {
    expect(mergeSpans([span(5, 6), span(1, 2), span(2, 3), span(2.5, 4)])).toEqual([
      { start: 1, end: 4 },
      { start: 5, end: 6 },
    ]);
  });

  it("keeps spans a pause apart separate", () => {
    expect(mergeSpans([span(1, 2), span(2.2, 3)])).toHaveLength(2);
  });

  it("bounds the count by joining the closest neighbours, which silences more and never less", () => {
    const spans = [span(0, 1), span(1.5, 2), span(2.05, 3), span(10, 11)];
    const merged = mergeSpans(spans, { maxSpans: 3 });
    expect(merged).toEqual([
      { start: 0, end: 1 },
      { start: 1.5, end: 3 },
      { start: 10, end: 11 },
    ]);
    for (const s of spans) expect(merged.some((m) => m.start <= s.start && m.end >= s.end)).toBe(true);
  });

  it("never keeps more than MAX_SPANS", () => {
    expect(mergeSpans(spaced(MAX_SPANS + 300))).toHaveLength(MAX_SPANS);
  });
});

describe("the filter", () => {
  it("is null when there is nothing to silence", () => {
    expect(redactionFilter([], { sampleRate: 48_000 })).toBeNull();
  });

  it("silences by default, in frames of FRAME_SEC at the stream's rate", () => {
    const f = redactionFilter([span(1, 2)], { sampleRate: 48_000 })!;
    expect(f).toContain(`asetnsamples=n=${48_000 * FRAME_SEC}:p=0`);
    expect(f).toMatch(/volume=enable='.*':volume=0$/);
    expect(f).not.toContain("sine");
  });

  it("widens each span's start by one frame, so a frame overlapping the word is silenced whole", () => {
    expect(redactionFilter([span(1, 2)], { sampleRate: 16_000 })).toContain(`between(t,${(1 - FRAME_SEC).toFixed(3)},2.000)`);
  });

  it("tones with a 1 kHz sine muted outside the spans", () => {
    const f = redactionFilter([span(1, 2)], { sampleRate: 48_000, mode: "tone" })!;
    expect(f).toContain("sine=frequency=1000:sample_rate=48000");
    expect(f).toContain("volume=enable='not(");
    expect(f).toContain("amix=inputs=2:duration=first:normalize=0");
  });

  it("tests each frame against log2(n) spans, not all of them: a balanced tree of comparisons", () => {
    const f = redactionFilter(spaced(256), { sampleRate: 48_000 })!;
    const expression = /enable='(.*)':volume=0/.exec(f)![1]!;
    expect(expression.match(/between\(/g)).toHaveLength(256);
    expect(nestingOf(expression)).toBeLessThanOrEqual(Math.ceil(Math.log2(256)) + 2);
  });

  it("stays bounded in length however many spans there are", () => {
    const bounded = redactionFilter(spaced(MAX_SPANS), { sampleRate: 48_000, mode: "tone" })!.length;
    expect(redactionFilter(spaced(5000), { sampleRate: 48_000, mode: "tone" })!.length).toBeLessThanOrEqual(bounded * 1.1);
    // Well within what one argument of a command line may hold (128 KiB on Linux).
    expect(bounded).toBeLessThan(100_000);
  });
});

/** How deep the parentheses of an expression nest. */
function nestingOf(expression: string): number {
  let depth = 0;
  let deepest = 0;
  for (const c of expression) {
    if (c === "(") deepest = Math.max(deepest, ++depth);
    else if (c === ")") depth--;
  }
  return deepest;
}

describe("what a dub's voice reads", () => {
  it("leaves placeholders out, a pause in their place", () => {
    expect(spokenText("Llame a [PERSON] mañana")).toBe("Llame a, mañana");
  });

  it("leaves out placeholders a translation returned in another case or language", () => {
    expect(spokenText("Hola [Persona], escriba a [CORREO]")).toBe("Hola, escriba a");
  });

  it("is empty when the text is only placeholders: the slot stays silent", () => {
    expect(spokenText("[PERSON] [PHONE].")).toBe("");
  });

  it("leaves text without placeholders as it is", () => {
    expect(spokenText("Buenos días a todos.")).toBe("Buenos días a todos.");
  });

  it("read in pieces (for the tone), has a gap where each run of placeholders was", () => {
    expect(spokenPieces("Llame a [PERSON] [PHONE], mañana [EMAIL]")).toEqual(["Llame a", null, "mañana", null]);
  });

  it("read in pieces, is one piece when there was no placeholder", () => {
    expect(spokenPieces("Buenos días a todos.")).toEqual(["Buenos días a todos."]);
  });
});
