import { describe, expect, it } from "vitest";
import { toSrt } from "../../contracts/subtitles";
import type { Segment } from "../../contracts/transcript";
import { segmentsForFiles } from "../../contracts/transcript-files";

/** How a rewrite of a transcript's files reads its segments (contracts/transcript-files.ts). */

const heard: Segment = {
  id: 0,
  start: 0,
  end: 2,
  text: "hello there",
  words: [
    { word: "hello", start: 0.1, end: 0.6 },
    { word: "there", start: 0.9, end: 1.4 },
  ],
};

describe("segmentsForFiles", () => {
  it("keeps the words, and their timings, of a segment whose words still spell its text", () => {
    expect(segmentsForFiles([heard])).toEqual([heard]);
    expect(toSrt(segmentsForFiles([heard]))).toContain("00:00:00,100 --> ");
  });

  it("an edited segment's subtitles say its new text, not the words heard before", () => {
    const edited = { ...heard, text: "hello, General Kenobi" };
    const srt = toSrt(segmentsForFiles([edited]));
    expect(srt).toContain("hello, General Kenobi");
    expect(srt).not.toContain("there");
  });
});
