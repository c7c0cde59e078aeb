import type { RawTurn } from "./turns";

/**
 * From labelled feature windows back to speaker turns. Inside a speech region each instant belongs
 * to the window whose centre is nearest (so a change of speaker lands halfway between two windows
 * that disagree); a region too short to have a window of its own takes the speaker of the nearest
 * window in time. Then a turn shorter than `minTurnSec` is given to the longer of its neighbours
 * within the same region (a speaker change lasting less than a window is noise of the clustering,
 * not a turn), unless it holds the last time of its speaker: the count the clustering settled on,
 * within the caller's bounds, is kept.
 */
export interface SmoothingOptions {
  minTurnSec: number;
}

export const DEFAULT_SMOOTHING: SmoothingOptions = { minTurnSec: 1.0 };

interface Span {
  start: number;
  end: number;
}

export function turnsFromWindows(
  regions: readonly Span[],
  windows: readonly Span[],
  labels: readonly number[],
  sampleRate: number,
  opts: SmoothingOptions = DEFAULT_SMOOTHING,
): RawTurn[] {
  if (windows.length === 0) return [];
  const centres = windows.map((w) => (w.start + w.end) / 2);
  const nearest = (t: number) => {
    let best = 0;
    for (let i = 1; i < centres.length; i++) if (Math.abs(centres[i]! - t) < Math.abs(centres[best]! - t)) best = i;
    return best;
  };

  // Per region, pieces between the midpoints of consecutive windows that disagree.
  const pieces: (RawTurn & { region: number })[] = [];
  regions.forEach((r, region) => {
    const inside = windows.flatMap((w, i) => (w.start >= r.start && w.end <= r.end ? [i] : []));
    if (inside.length === 0) {
      pieces.push({ start: r.start, end: r.end, speaker: labels[nearest((r.start + r.end) / 2)]!, region });
      return;
    }
    let start = r.start;
    for (let k = 0; k < inside.length; k++) {
      const i = inside[k]!;
      const next = inside[k + 1];
      if (next !== undefined && labels[next] === labels[i]) continue;
      const end = next === undefined ? r.end : Math.round((centres[i]! + centres[next]!) / 2);
      pieces.push({ start, end, speaker: labels[i]!, region });
      start = end;
    }
  });

  const minLen = opts.minTurnSec * sampleRate;
  for (let changed = true; changed;) {
    changed = false;
    const remaining = new Map<RawTurn["speaker"], number>();
    for (const p of pieces) remaining.set(p.speaker, (remaining.get(p.speaker) ?? 0) + 1);
    // Shortest first, so a flicker is absorbed before its neighbours are judged.
    const order = pieces.map((_, i) => i).sort((a, b) => len(pieces[a]!) - len(pieces[b]!));
    for (const i of order) {
      const p = pieces[i]!;
      if (len(p) >= minLen || remaining.get(p.speaker) === 1) continue;
      const prev = pieces[i - 1]?.region === p.region ? pieces[i - 1] : undefined;
      const next = pieces[i + 1]?.region === p.region ? pieces[i + 1] : undefined;
      const into = prev && next ? (len(prev) >= len(next) ? prev : next) : (prev ?? next);
      if (!into) continue;
      into.start = Math.min(into.start, p.start);
      into.end = Math.max(into.end, p.end);
      pieces.splice(i, 1);
      // Neighbours of the same speaker that now touch become one piece.
      for (let k = pieces.length - 1; k > 0; k--) {
        const a = pieces[k - 1]!;
        const b = pieces[k]!;
        if (a.region === b.region && a.speaker === b.speaker) {
          a.end = b.end;
          pieces.splice(k, 1);
        }
      }
      changed = true;
      break;
    }
  }
  return pieces.map((p) => ({ start: p.start / sampleRate, end: p.end / sampleRate, speaker: p.speaker }));
}

function len(s: Span): number {
  return s.end - s.start;
}
