import { describe, expect, it } from "vitest";
import { clusterWindows, DEFAULT_CLUSTERING } from "../../../gpu-runner/engines/diarization/clustering";

/** The speaker-count rule and the clustering of feature windows (gpu-runner/engines/diarization/clustering.ts), on synthetic points. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** `n` points in 24 dimensions around `centre` (uniform noise of unit spread). */
function blob(n: number, centre: number, seed: number): number[][] {
  const r = random(seed);
  return Array.from({ length: n }, () => Array.from({ length: 24 }, (_, d) => (d < 4 ? centre : 0) + (r() - 0.5) * 2));
}

const groups = (labels: number[]) => new Set(labels).size;

describe("diarization clustering", () => {
  it("keeps one cloud of windows as one speaker", () => {
    expect(groups(clusterWindows(blob(40, 0, 1), {}))).toBe(1);
  });

  it("splits two well separated clouds into two speakers, each cloud whole", () => {
    const labels = clusterWindows([...blob(20, 0, 2), ...blob(25, 4, 3)], {});
    expect(new Set(labels.slice(0, 20)).size).toBe(1);
    expect(new Set(labels.slice(20)).size).toBe(1);
    expect(labels[0]).not.toBe(labels[20]);
  });

  it("never splits off fewer windows than minClusterWindows", () => {
    const labels = clusterWindows([...blob(30, 0, 4), ...blob(DEFAULT_CLUSTERING.minClusterWindows - 1, 8, 5)], {});
    expect(groups(labels)).toBe(1);
  });

  it("clamps the count into [minSpeakers, maxSpeakers]", () => {
    const two = [...blob(20, 0, 6), ...blob(20, 4, 7)];
    expect(groups(clusterWindows(two, { maxSpeakers: 1 }))).toBe(1);
    expect(groups(clusterWindows(two, { minSpeakers: 3 }))).toBe(3);
  });

  it("asks for no more speakers than there are windows", () => {
    expect(groups(clusterWindows(blob(2, 0, 8), { minSpeakers: 5 }))).toBe(2);
  });

  it("clusters more windows than the tree takes on an even sample, then joins each window to the nearest centroid", () => {
    const labels = clusterWindows([...blob(150, 0, 9), ...blob(150, 4, 10)], {}, { ...DEFAULT_CLUSTERING, maxTreeWindows: 60 });
    expect(new Set(labels.slice(0, 150)).size).toBe(1);
    expect(new Set(labels.slice(150)).size).toBe(1);
    expect(labels[0]).not.toBe(labels[150]);
  });

  it("gives nothing for no windows", () => {
    expect(clusterWindows([], {})).toEqual([]);
  });
});
