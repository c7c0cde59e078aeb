/**
 * TextRank for sentence extraction (Mihalcea & Tarau, "TextRank: Bringing Order into Texts",
 * EMNLP 2004, section 4): sentences are the vertices of an undirected graph, an edge's weight is the
 * overlap of the two sentences' terms normalised by their lengths, and a sentence's score is its
 * weighted PageRank. A sentence that shares vocabulary with many others (the text's centre) ranks
 * first; one that shares nothing keeps only the teleport share.
 *
 * Two departures, both for short sentences: the normaliser is ln(1 + |Si|) + ln(1 + |Sj|) instead of
 * ln|Si| + ln|Sj|, which is 0 for two one-term sentences; and the teleport share is (1 − d) / N so
 * the scores sum to 1 and compare across documents of different sizes.
 */

export interface TextRankOptions {
  /** PageRank damping factor (the paper's 0.85). */
  damping?: number;
  /** Stop when no score moves by more than this between iterations. */
  tolerance?: number;
  maxIterations?: number;
}

/**
 * One score per sentence (same order), summing to 1. `sentences` are each sentence's terms (in the
 * text engine: content-word stems); duplicates inside a sentence count once.
 */
export function textRank(sentences: readonly (readonly string[])[], opts: TextRankOptions = {}): number[] {
  const n = sentences.length;
  if (n === 0) return [];
  const d = opts.damping ?? 0.85;
  const tolerance = opts.tolerance ?? 1e-6;
  const maxIterations = opts.maxIterations ?? 100;
  const graph = similarityGraph(sentences);

  let scores = new Float64Array(n).fill(1 / n);
  for (let iter = 0; iter < maxIterations; iter++) {
    const next = new Float64Array(n).fill((1 - d) / n);
    // A sentence with no edges would leak its rank; spreading it evenly keeps the total at 1.
    let dangling = 0;
    for (let j = 0; j < n; j++) {
      const out = graph.strength[j] ?? 0;
      const sj = scores[j] ?? 0;
      if (out === 0) {
        dangling += sj;
        continue;
      }
      const targets = graph.neighbours[j] ?? [];
      const weights = graph.weights[j] ?? [];
      for (let k = 0; k < targets.length; k++) {
        const i = targets[k] as number;
        next[i] = (next[i] ?? 0) + (d * sj * (weights[k] ?? 0)) / out;
      }
    }
    let delta = 0;
    for (let i = 0; i < n; i++) {
      const v = (next[i] ?? 0) + (d * dangling) / n;
      delta = Math.max(delta, Math.abs(v - (scores[i] ?? 0)));
      next[i] = v;
    }
    scores = next;
    if (delta < tolerance) break;
  }
  return Array.from(scores);
}

interface Graph {
  neighbours: number[][];
  weights: number[][];
  /** Sum of a vertex's edge weights. */
  strength: number[];
}

/**
 * Edges only between sentences that share a term, found through an inverted index so that a long
 * transcript (hundreds of sentences) costs the shared terms, not every pair's comparison.
 */
function similarityGraph(sentences: readonly (readonly string[])[]): Graph {
  const n = sentences.length;
  const sets = sentences.map((s) => [...new Set(s)]);
  const postings = new Map<string, number[]>();
  sets.forEach((terms, i) => {
    for (const t of terms) {
      const list = postings.get(t);
      if (list) list.push(i);
      else postings.set(t, [i]);
    }
  });
  const neighbours: number[][] = Array.from({ length: n }, () => []);
  const weights: number[][] = Array.from({ length: n }, () => []);
  const strength = new Array<number>(n).fill(0);
  const overlap = new Int32Array(n);
  const touched: number[] = [];
  for (let i = 0; i < n; i++) {
    const terms = sets[i] ?? [];
    for (const t of terms)
      for (const j of postings.get(t) ?? []) {
        if (j <= i) continue;
        if (overlap[j] === 0) touched.push(j);
        overlap[j] = (overlap[j] ?? 0) + 1;
      }
    for (const j of touched) {
      const w = (overlap[j] ?? 0) / (Math.log1p(terms.length) + Math.log1p(sets[j]?.length ?? 0));
      overlap[j] = 0;
      neighbours[i]?.push(j);
      weights[i]?.push(w);
      neighbours[j]?.push(i);
      weights[j]?.push(w);
      strength[i] = (strength[i] ?? 0) + w;
      strength[j] = (strength[j] ?? 0) + w;
    }
    touched.length = 0;
  }
  return { neighbours, weights, strength };
}

/** Indexes of `scores` from the highest score down; ties keep the earlier index first. */
export function rankOrder(scores: readonly number[]): number[] {
  return scores.map((_, i) => i).sort((a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || a - b);
}
