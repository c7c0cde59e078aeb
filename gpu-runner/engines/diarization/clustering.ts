import { agnes, type Cluster } from "ml-hclust";

/**
 * Agglomerative clustering of standardised feature windows into speakers, and the documented rule
 * for how many speakers there are.
 *
 * The tree is built with Ward's linkage on Euclidean distances (ml-hclust `ward2`), which merges the
 * pair of clusters that adds least within-cluster variance. How many speakers is then read off the
 * tree top-down: a cluster is split in two when the split explains at least `splitThreshold` of
 * that cluster's own variance (between-children sum of squares ÷ the cluster's sum of squares, an
 * R² that does not depend on the recording's length or loudness) and each half has at least
 * `minClusterWindows` windows (with fewer, any split explains a lot by chance: 0.45–0.65 for five
 * windows of one voice). Measured on synthetic voices (Festival slt, eSpeak en+m3 and en+f3, each
 * alone and in conversation): the split between two different speakers explains 0.51, the best
 * split of one speaker's 17–31 windows 0.19–0.31 (smaller clusters of one voice reach higher),
 * hence the default 0.4 and at least 4 windows (about 3 s of speech) a side. With pitch among the
 * features (features.ts; bench/diarization.ts's recordings): speakers of different pitch split at
 * 0.43–0.82 (the two-voice sample 0.82, the interview 0.80, the panel 0.73 then 0.45), one speaker's
 * windows at 0.13–0.31 (one LibriVox reader: 0.26); two voices of one pitch split at only 0.16–0.19
 * and stay one speaker.
 *
 * The count is then clamped into [minSpeakers, maxSpeakers]: too few, and the cluster whose merge
 * is highest is split again until there are enough; too many, and the tree is cut at exactly
 * maxSpeakers clusters.
 *
 * Building the tree costs the cube of the windows (600 windows, about 7 minutes of speech: 0.8 s;
 * 1,200: 7 s), so a longer recording is clustered on `maxTreeWindows` windows taken evenly through
 * it, and every window then joins the cluster whose centroid is nearest.
 */
export interface ClusteringOptions {
  splitThreshold: number;
  minClusterWindows: number;
  maxTreeWindows: number;
}

export const DEFAULT_CLUSTERING: ClusteringOptions = { splitThreshold: 0.4, minClusterWindows: 4, maxTreeWindows: 600 };

/** A cluster number per window (0-based, in no particular order). */
export function clusterWindows(
  rows: readonly number[][],
  bounds: { minSpeakers?: number; maxSpeakers?: number },
  opts: ClusteringOptions = DEFAULT_CLUSTERING,
): number[] {
  if (rows.length === 0) return [];
  const max = Math.min(bounds.maxSpeakers ?? Infinity, rows.length);
  const min = Math.min(bounds.minSpeakers ?? 1, max);
  if (rows.length === 1 || max === 1) return rows.map(() => 0);
  if (rows.length > opts.maxTreeWindows) {
    const stride = rows.length / opts.maxTreeWindows;
    const sample = Array.from({ length: opts.maxTreeWindows }, (_, i) => rows[Math.floor(i * stride)]!);
    const sampleLabels = clusterWindows(sample, bounds, opts);
    const centroids = [...new Set(sampleLabels)].map((k) =>
      centroid(
        sampleLabels.flatMap((l, i) => (l === k ? [i] : [])),
        sample,
      ),
    );
    return rows.map((r) => nearest(r, centroids));
  }
  const tree = agnes(rows as number[][], { method: "ward2" });

  let clusters = [tree];
  for (let changed = true; changed;) {
    changed = false;
    clusters = clusters.flatMap((c) => {
      if (!splits(c, rows, opts)) return [c];
      changed = true;
      return c.children;
    });
  }
  if (clusters.length > max) clusters = tree.group(max).children;
  while (clusters.length < min) {
    const highest = clusters.reduce((a, b) => (b.height > a.height ? b : a));
    clusters = clusters.flatMap((c) => (c === highest ? c.children : [c]));
  }

  const labels = new Array<number>(rows.length).fill(0);
  clusters.forEach((c, k) => {
    for (const i of c.indices()) labels[i] = k;
  });
  return labels;
}

function splits(c: Cluster, rows: readonly number[][], opts: ClusteringOptions): boolean {
  if (c.isLeaf || c.children.length !== 2) return false;
  const [a, b] = c.children as [Cluster, Cluster];
  if (a.size < opts.minClusterWindows || b.size < opts.minClusterWindows) return false;
  const all = c.indices();
  const total = sumOfSquares(all, rows, centroid(all, rows));
  if (total <= 0) return false;
  const ca = centroid(a.indices(), rows);
  const cb = centroid(b.indices(), rows);
  const between = ((a.size * b.size) / (a.size + b.size)) * ca.reduce((s, x, d) => s + (x - cb[d]!) ** 2, 0);
  return between / total >= opts.splitThreshold;
}

function nearest(row: readonly number[], centroids: readonly number[][]): number {
  let best = 0;
  let bestDist = Infinity;
  centroids.forEach((c, k) => {
    const d = c.reduce((s, x, i) => s + (x - row[i]!) ** 2, 0);
    if (d < bestDist) [best, bestDist] = [k, d];
  });
  return best;
}

function centroid(indices: readonly number[], rows: readonly number[][]): number[] {
  const m = new Array<number>(rows[0]!.length).fill(0);
  for (const i of indices) rows[i]!.forEach((x, d) => (m[d]! += x / indices.length));
  return m;
}

function sumOfSquares(indices: readonly number[], rows: readonly number[][], mean: readonly number[]): number {
  let s = 0;
  for (const i of indices) rows[i]!.forEach((x, d) => (s += (x - mean[d]!) ** 2));
  return s;
}
