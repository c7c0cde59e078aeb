/**
 * TextTiling-style topic segmentation (Hearst, "TextTiling: Segmenting Text into Multi-paragraph
 * Subtopic Passages", Computational Linguistics 23(1), 1997), block-comparison variant, over a
 * transcript's units (the text engine passes one unit per segment, its content-word stems):
 *
 * 1. Gap score: at each gap between unit g and unit g + 1, the cosine similarity of the term counts
 *    of the block on its left (units g, g − 1, … until `blockTokens` terms are gathered) and the block
 *    on its right (units g + 1, g + 2, … likewise). Blocks are measured in terms rather than units
 *    because segments vary from a few words to a paragraph.
 * 2. Smoothing: a moving average over `smoothing` gaps either side (Hearst smooths before scoring).
 * 3. Depth score: how far the gap lies below the peaks around it, climbing left and right while the
 *    score rises: (leftPeak − s) + (rightPeak − s). A deep valley is a topic change.
 * 4. Boundaries: gaps that are valleys (no deeper than either neighbour) with a depth above Hearst's
 *    liberal cutoff, mean − sd / 2 of all depth scores, and whose blocks are at least half full
 *    (near either end of the text a block is cut short and its score is noise).
 *
 * The caller decides which boundaries to keep (chapters also need a minimum length in seconds).
 */

export interface TextTilingOptions {
  /** Terms gathered on each side of a gap (Hearst: 6 token-sequences of 20 = 120). */
  blockTokens?: number;
  /** Gaps averaged either side when smoothing (1 = a window of 3). */
  smoothing?: number;
}

export interface TextTiling {
  /** Smoothed cohesion at each gap (gap g lies between unit g and unit g + 1), 0..1. */
  gapScores: number[];
  depthScores: number[];
  /** Gaps that are valleys deeper than the cutoff, deepest first. */
  boundaries: number[];
  cutoff: number;
}

export function textTiling(units: readonly (readonly string[])[], opts: TextTilingOptions = {}): TextTiling {
  const gaps = Math.max(0, units.length - 1);
  if (gaps === 0) return { gapScores: [], depthScores: [], boundaries: [], cutoff: 0 };
  const blockTokens = Math.max(1, opts.blockTokens ?? 120);
  const raw: number[] = [];
  const eligible: boolean[] = [];
  for (let g = 0; g < gaps; g++) {
    const left = block(units, g, -1, blockTokens);
    const right = block(units, g + 1, 1, blockTokens);
    raw.push(cosine(left.counts, right.counts));
    eligible.push(Math.min(left.taken, right.taken) >= blockTokens / 2);
  }
  const gapScores = smooth(raw, opts.smoothing ?? 1);
  const depthScores = gapScores.map((_, g) => depth(gapScores, g));

  const mean = depthScores.reduce((a, b) => a + b, 0) / gaps;
  const sd = Math.sqrt(depthScores.reduce((a, b) => a + (b - mean) ** 2, 0) / gaps);
  const cutoff = mean - sd / 2;
  const boundaries = depthScores
    .map((dep, g) => ({ dep, g }))
    .filter(({ dep, g }) => dep > 0 && dep > cutoff && eligible[g] && isValley(gapScores, g))
    .sort((a, b) => b.dep - a.dep || a.g - b.g)
    .map(({ g }) => g);
  return { gapScores, depthScores, boundaries, cutoff };
}

/** Term counts of the units from `from` walking in `step` direction until `size` terms are in. */
function block(
  units: readonly (readonly string[])[],
  from: number,
  step: 1 | -1,
  size: number,
): { counts: Map<string, number>; taken: number } {
  const counts = new Map<string, number>();
  let taken = 0;
  for (let u = from; u >= 0 && u < units.length && taken < size; u += step)
    for (const t of units[u] ?? []) {
      counts.set(t, (counts.get(t) ?? 0) + 1);
      taken++;
    }
  return { counts, taken };
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    dot += x * (b.get(t) ?? 0);
  }
  for (const x of b.values()) nb += x * x;
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

function smooth(xs: readonly number[], width: number): number[] {
  return xs.map((_, i) => {
    let sum = 0;
    let n = 0;
    for (let k = Math.max(0, i - width); k <= Math.min(xs.length - 1, i + width); k++) {
      sum += xs[k] ?? 0;
      n++;
    }
    return sum / n;
  });
}

function depth(s: readonly number[], g: number): number {
  const here = s[g] ?? 0;
  let left = here;
  for (let k = g - 1; k >= 0 && (s[k] ?? 0) >= left; k--) left = s[k] ?? 0;
  let right = here;
  for (let k = g + 1; k < s.length && (s[k] ?? 0) >= right; k++) right = s[k] ?? 0;
  return left - here + (right - here);
}

function isValley(s: readonly number[], g: number): boolean {
  const here = s[g] ?? 0;
  return (g === 0 || here <= (s[g - 1] ?? 0)) && (g === s.length - 1 || here <= (s[g + 1] ?? 0));
}
