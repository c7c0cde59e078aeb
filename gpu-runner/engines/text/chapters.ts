import type { AnalysedText } from "./analysis";
import { textTiling } from "./texttiling";

/**
 * Where chapters start: TextTiling (texttiling.ts) over the segments' content terms proposes topic
 * boundaries, deepest valley first; a boundary is kept when
 * - a sentence starts exactly where its segment starts (a chapter never opens mid-sentence),
 * - it leaves every chapter at least `minChapterSec` long: max(60 s, duration / 30),
 * - fewer than `maxChapters` are kept: 1 + one per full 3 minutes, at most 15.
 * A transcript shorter than 3 minutes is one chapter. The first chapter starts at 0 with the
 * first segment. Blocks are Hearst's 120 terms either side of a gap (about two minutes of speech;
 * smaller blocks found the joins of the test talks less reliably).
 */

export interface ChapterStart {
  /** Index into `AnalysedText.segments`. */
  segment: number;
  start: number;
}

export const SHORT_TRANSCRIPT_SEC = 180;
export const MAX_CHAPTERS = 15;

export function chapterLimits(durationSec: number): { minChapterSec: number; maxChapters: number } {
  if (durationSec < SHORT_TRANSCRIPT_SEC) return { minChapterSec: durationSec, maxChapters: 1 };
  return {
    minChapterSec: Math.max(60, durationSec / 30),
    maxChapters: Math.min(MAX_CHAPTERS, 1 + Math.floor(durationSec / SHORT_TRANSCRIPT_SEC)),
  };
}

export function chapterStarts(a: AnalysedText, durationSec: number): ChapterStart[] {
  const first: ChapterStart = { segment: 0, start: 0 };
  const { minChapterSec, maxChapters } = chapterLimits(durationSec);
  if (maxChapters <= 1 || a.segments.length < 2) return [first];

  const tiling = textTiling(a.segmentTerms);
  const kept: ChapterStart[] = [first];
  for (const gap of tiling.boundaries) {
    if (kept.length >= maxChapters) break;
    const segment = gap + 1;
    const start = a.segments[segment]?.start ?? 0;
    if (!a.segmentOpensSentence[segment]) continue;
    if (durationSec - start < minChapterSec) continue;
    if (kept.some((k) => Math.abs(k.start - start) < minChapterSec)) continue;
    kept.push({ segment, start });
  }
  return kept.sort((x, y) => x.start - y.start);
}
