import { describe, expect, it } from "vitest";
import type { Word } from "../../contracts/transcript";
import { buildSegments, mergeChunkWords } from "../../gpu-runner/services/transcription/merge";

const w = (word: string, start: number, end: number, confidence?: number): Word => ({
  word,
  start,
  end,
  ...(confidence !== undefined ? { confidence } : {}),
});
const texts = (words: Word[]): string => words.map((x) => x.word).join(" ");

describe("merging chunk results", () => {
  it("applies each chunk's offset to its word times", () => {
    const merged = mergeChunkWords([
      { start: 0, end: 10, words: [w("one", 1, 1.5)] },
      { start: 10, end: 20, words: [w("two", 0.5, 1)] },
    ]);
    expect(merged).toEqual([w("one", 1, 1.5), w("two", 10.5, 11)]);
  });

  it("orders chunks by start time whatever order they finished in", () => {
    const merged = mergeChunkWords([
      { start: 10, end: 20, words: [w("second", 0, 1)] },
      { start: 0, end: 10, words: [w("first", 0, 1)] },
    ]);
    expect(texts(merged)).toBe("first second");
  });

  it("keeps words of overlapping chunks once: each side owns its half of the overlap", () => {
    // Forced cut at 10 s; the next chunk starts 1 s earlier, so both hear 9..10 s.
    const merged = mergeChunkWords([
      { start: 0, end: 10, words: [w("we", 8, 8.4), w("went", 8.5, 9.1), w("home", 9.3, 9.9)] },
      { start: 9, end: 20, words: [w("went", 0.1, 0.1), w("home", 0.3, 0.9), w("late", 1.1, 1.5)] },
    ]);
    expect(texts(merged)).toBe("we went home late");
  });

  it("drops a boundary duplicate whose times overlap the previous word", () => {
    const merged = mergeChunkWords([
      { start: 0, end: 10.2, words: [w("hello", 9.4, 9.9)] },
      { start: 9.8, end: 20, words: [w("hello", 0.1, 0.3), w("world", 0.5, 1)] },
    ]);
    expect(texts(merged)).toBe("hello world");
  });

  it("keeps a genuinely repeated word on both sides of an abutting cut", () => {
    const merged = mergeChunkWords([
      { start: 0, end: 10, words: [w("no", 9, 9.4)] },
      { start: 10, end: 20, words: [w("no", 0.2, 0.6)] },
    ]);
    expect(texts(merged)).toBe("no no");
  });

  it("returns monotonic, non-overlapping word times", () => {
    const merged = mergeChunkWords([{ start: 0, end: 5, words: [w("a", 0, 1), w("b", 0.8, 1.5), w("c", 1.4, 2)] }]);
    for (let i = 1; i < merged.length; i++) expect(merged[i]!.start).toBeGreaterThanOrEqual(merged[i - 1]!.end);
  });
});

describe("building segments", () => {
  it("numbers segments 0..n-1 in time order", () => {
    const segs = buildSegments([w("a.", 0, 1), w("b.", 2, 3), w("c.", 4, 5)]);
    expect(segs.map((s) => s.id)).toEqual([0, 1, 2]);
  });

  it("splits at a pause longer than 0.7 s", () => {
    const segs = buildSegments([w("one", 0, 0.5), w("two", 0.6, 1), w("three", 1.8, 2.2)]);
    expect(segs.map((s) => s.text)).toEqual(["one two", "three"]);
  });

  it("splits after a sentence end", () => {
    const segs = buildSegments([w("Stop.", 0, 0.5), w("Go", 0.55, 1)]);
    expect(segs.map((s) => s.text)).toEqual(["Stop.", "Go"]);
  });

  it("closes a segment once it is longer than 15 s", () => {
    const words = Array.from({ length: 40 }, (_, i) => w(`w${i}`, i * 0.5, i * 0.5 + 0.45));
    const segs = buildSegments(words);
    expect(segs.length).toBeGreaterThan(1);
    for (const s of segs) expect(s.end - s.start).toBeLessThanOrEqual(15);
  });

  it("carries its words, its time span and the average word confidence", () => {
    const [seg] = buildSegments([w("good", 1, 1.5, 0.9), w("day", 1.6, 2, 0.5)]);
    expect(seg).toMatchObject({ start: 1, end: 2, text: "good day", confidence: 0.7 });
    expect(seg!.words).toHaveLength(2);
  });

  it("attaches punctuation tokens to the previous word in the text", () => {
    const [seg] = buildSegments([w("Hello", 0, 0.4), w(",", 0.4, 0.45), w("you", 0.5, 0.8)]);
    expect(seg!.text).toBe("Hello, you");
  });

  it("writes Japanese or Chinese words with no spaces between them", () => {
    const [seg] = buildSegments([w("今日", 0, 0.3), w("は", 0.3, 0.4), w("晴れ", 0.4, 0.7), w("です", 0.7, 0.9), w("。", 0.9, 0.9)]);
    expect(seg!.text).toBe("今日は晴れです。");
  });

  it("splits after a CJK full stop", () => {
    const segments = buildSegments([w("晴れ", 0, 0.3), w("です。", 0.3, 0.6), w("次", 0.65, 0.9)]);
    expect(segments.map((s) => s.text)).toEqual(["晴れです。", "次"]);
  });
});
