import type { Word } from "../../../contracts/transcript";
import type { EngineSegment } from "./interface";

/**
 * Engines that return only segment times (no word timestamps) still need words for merging and
 * cue splitting: spread each segment's duration over its words in proportion to their length.
 */
export function wordsFromSegments(segments: readonly EngineSegment[]): Word[] {
  const words: Word[] = [];
  for (const seg of segments) {
    if (seg.words?.length) {
      words.push(...seg.words);
      continue;
    }
    const tokens = seg.text.trim().split(/\s+/).filter(Boolean);
    const totalChars = tokens.reduce((n, t) => n + t.length, 0);
    if (!tokens.length || totalChars === 0) continue;
    const span = Math.max(0, seg.end - seg.start);
    let t = seg.start;
    for (const token of tokens) {
      const d = (span * token.length) / totalChars;
      words.push({ word: token, start: t, end: t + d });
      t += d;
    }
  }
  return words;
}
