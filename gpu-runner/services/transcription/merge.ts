import { isSentenceEnd, joinWords } from "../../../contracts/subtitles";
import type { Segment, Word } from "../../../contracts/transcript";

/**
 * Turns per-chunk engine output into one word list and then into segments. Chunks are cut at
 * silences, so they normally abut; a forced cut (no silence within the maximum chunk length) makes
 * neighbours overlap, and both then hear the words in the overlap. The overlap is split at its
 * midpoint: each word goes to the chunk whose side of the midpoint its centre falls on, and a word
 * repeated across the cut with overlapping times is kept once.
 */
export interface ChunkWords {
  /** Where the chunk starts in the source, seconds. */
  start: number;
  /** Where the chunk ends in the source, seconds. */
  end: number;
  /** Word times relative to the chunk start. */
  words: readonly Word[];
}

const DUPLICATE_TOLERANCE_SEC = 0.25;
const centre = (w: Word): number => (w.start + w.end) / 2;
const normalise = (w: string): string => w.toLowerCase().replace(/[^\p{L}\p{N}']/gu, "");

export function mergeChunkWords(chunks: readonly ChunkWords[]): Word[] {
  const ordered = [...chunks].sort((a, b) => a.start - b.start);
  const merged: Word[] = [];
  for (let i = 0; i < ordered.length; i++) {
    const chunk = ordered[i]!;
    const prev = ordered[i - 1];
    const next = ordered[i + 1];
    // Ownership window: from the midpoint of the overlap with the previous chunk to the midpoint of the overlap with the next.
    const from = prev && prev.end > chunk.start ? (chunk.start + prev.end) / 2 : Number.NEGATIVE_INFINITY;
    const to = next && chunk.end > next.start ? (next.start + chunk.end) / 2 : Number.POSITIVE_INFINITY;
    for (const w of chunk.words) {
      const abs: Word = { ...w, start: round3(w.start + chunk.start), end: round3(w.end + chunk.start) };
      const c = centre(abs);
      if (c < from || c >= to) continue;
      const last = merged.at(-1);
      // Two decodes of the same word disagree on its timing by a few frames; only overlapping
      // chunks can hear one word twice, so abutting chunks keep genuine repetitions ("no, no").
      if (
        from !== Number.NEGATIVE_INFINITY &&
        last &&
        normalise(last.word) === normalise(abs.word) &&
        abs.start < last.end + DUPLICATE_TOLERANCE_SEC
      )
        continue;
      merged.push(abs);
    }
  }
  // Engines occasionally emit slightly out-of-order or overlapping times; keep the list monotonic.
  merged.sort((a, b) => a.start - b.start);
  for (let i = 1; i < merged.length; i++) {
    const prev = merged[i - 1]!;
    const cur = merged[i]!;
    if (cur.start < prev.end) merged[i] = { ...cur, start: prev.end, end: Math.max(cur.end, prev.end) };
  }
  return merged;
}

export interface SegmentOptions {
  /** A silence longer than this between words starts a new segment. */
  maxPauseSec?: number;
  /** A segment is closed at the next word once it is this long. */
  maxSegmentSec?: number;
}

/**
 * Splits words into segments at sentence ends, pauses and (in a diarized transcript) speaker turns,
 * so a segment never spans two speakers; ids are 0..n-1 in time order.
 */
export function buildSegments(words: readonly Word[], opts: SegmentOptions = {}): Segment[] {
  const maxPause = opts.maxPauseSec ?? 0.7;
  const maxLen = opts.maxSegmentSec ?? 15;
  const groups: Word[][] = [];
  let current: Word[] = [];
  for (const w of words) {
    const last = current.at(-1);
    const first = current[0];
    if (
      last &&
      first &&
      (w.start - last.end > maxPause || isSentenceEnd(last.word) || w.end - first.start > maxLen || w.speaker !== last.speaker)
    ) {
      groups.push(current);
      current = [];
    }
    current.push(w);
  }
  if (current.length) groups.push(current);
  return groups.map((group, id) => toSegment(id, group));
}

function toSegment(id: number, words: Word[]): Segment {
  const confidences = words.map((w) => w.confidence).filter((c): c is number => c !== undefined);
  const segment: Segment = {
    id,
    start: words[0]!.start,
    end: Math.max(...words.map((w) => w.end)),
    text: joinWords(words),
    words,
  };
  if (confidences.length) segment.confidence = round3(confidences.reduce((a, b) => a + b, 0) / confidences.length);
  if (words[0]!.speaker !== undefined) segment.speaker = words[0]!.speaker;
  return segment;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
