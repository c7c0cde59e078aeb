import { describe, expect, it } from "vitest";
import { chunkSegments, sparseTerms } from "../../../gpu-runner/services/indexer/chunk";

/** Segment-aligned catalog chunks: whole segments, 30–60 s, closing on sentence ends, overlapping by whole segments. */

const OPTS = { minSeconds: 30, maxSeconds: 60, overlapSeconds: 10 };

/** `n` segments of `len` seconds each; every `sentenceEvery`-th ends a sentence. */
function segments(n: number, len: number, sentenceEvery = 1) {
  return Array.from({ length: n }, (_, id) => ({
    id,
    start: id * len,
    end: (id + 1) * len,
    text: `words of segment ${id}${(id + 1) % sentenceEvery === 0 ? "." : ""}`,
  }));
}

describe("chunkSegments", () => {
  it("chunks are whole consecutive segments with the segments' own times and ids", () => {
    for (const c of chunkSegments(segments(40, 5), OPTS)) {
      const ids = c.segmentIds;
      expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => ids[0]! + i));
      expect(c.start).toBe(ids[0]! * 5);
      expect(c.end).toBe((ids[ids.length - 1]! + 1) * 5);
    }
  });

  it("every chunk but the last covers 30 to 60 seconds", () => {
    const chunks = chunkSegments(segments(60, 4, 3), OPTS);
    for (const c of chunks.slice(0, -1)) {
      expect(c.end - c.start).toBeGreaterThanOrEqual(30);
      expect(c.end - c.start).toBeLessThanOrEqual(60);
    }
  });

  it("closes a chunk at the first sentence end after the minimum", () => {
    const chunks = chunkSegments(segments(30, 4, 5), OPTS);
    expect(chunks[0]!.text.endsWith(".")).toBe(true);
    expect(chunks[0]!.end).toBe(40);
  });

  it("without sentence ends, a chunk runs to the maximum", () => {
    const chunks = chunkSegments(segments(30, 4, 1000), OPTS);
    expect(chunks[0]!.end - chunks[0]!.start).toBe(60);
  });

  it("the next chunk repeats the previous chunk's tail segments within the overlap", () => {
    const [a, b] = chunkSegments(segments(40, 4, 5), OPTS);
    const shared = a!.segmentIds.filter((id) => b!.segmentIds.includes(id));
    expect(shared.length).toBeGreaterThan(0);
    expect(a!.end - b!.start).toBeLessThanOrEqual(10);
  });

  it("covers every segment, and always moves forward", () => {
    const segs = segments(97, 3, 4);
    const chunks = chunkSegments(segs, OPTS);
    expect(new Set(chunks.flatMap((c) => c.segmentIds))).toEqual(new Set(segs.map((s) => s.id)));
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.segmentIds[0]!).toBeGreaterThan(chunks[i - 1]!.segmentIds[0]!);
  });

  it("a segment longer than the maximum is a chunk of its own", () => {
    const segs = [
      { id: 0, start: 0, end: 5, text: "short." },
      { id: 1, start: 5, end: 95, text: "a very long monologue." },
      { id: 2, start: 95, end: 100, text: "short again." },
    ];
    expect(chunkSegments(segs, OPTS).map((c) => c.segmentIds)).toEqual([[0], [1], [2]]);
  });

  it("skips segments without words, and a transcript without words has no chunks", () => {
    expect(chunkSegments([{ id: 0, start: 0, end: 2, text: "  " }], OPTS)).toEqual([]);
    const chunks = chunkSegments(
      [
        { id: 0, start: 0, end: 2, text: "hello." },
        { id: 1, start: 2, end: 4, text: "" },
      ],
      OPTS,
    );
    expect(chunks.map((c) => c.segmentIds)).toEqual([[0]]);
  });

  it("positions count from 0 in order", () => {
    expect(chunkSegments(segments(50, 4, 3), OPTS).map((c) => c.position)).toEqual(
      chunkSegments(segments(50, 4, 3), OPTS).map((_, i) => i),
    );
  });
});

describe("sparseTerms", () => {
  it("splits words where FTS5's unicode61 tokenizer does, lower-cased", () => {
    expect(sparseTerms("Don't stop — Café 42!")).toEqual(["don", "t", "stop", "café", "42"]);
  });
});
