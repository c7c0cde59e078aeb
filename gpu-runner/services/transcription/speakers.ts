import type { Segment, Word } from "../../../contracts/transcript";
import type { Diarization, SpeakerTurn } from "../../engines/diarization/interface";
import { buildSegments } from "./merge";

/**
 * Who said each word: the diarization's turns laid over the recogniser's words. A word belongs to
 * the speaker whose turns overlap it most; a word no turn overlaps (the voice detector and the
 * recogniser disagree at the edges of speech) belongs to the nearest turn, the earlier one on a tie.
 * The segments are then cut again from the labelled words, so a turn change ends a segment (merge.ts)
 * and a segment never spans two speakers. Labels are renumbered by first appearance in the words,
 * since a speaker the recogniser heard nothing from must not take a number before one it did.
 */
export function diarizedSegments(segments: readonly Segment[], diarization: Diarization): Segment[] {
  const words = segments.flatMap((s) => s.words ?? []);
  if (words.length === 0 || diarization.turns.length === 0) return [...segments];
  return buildSegments(renumberByFirstAppearance(words.map((w) => ({ ...w, speaker: speakerOf(w, diarization.turns) }))));
}

function speakerOf(w: Word, turns: readonly SpeakerTurn[]): string {
  const overlap = new Map<string, number>();
  let nearest: SpeakerTurn | undefined;
  let nearestGap = Number.POSITIVE_INFINITY;
  for (const t of turns) {
    const o = Math.min(w.end, t.end) - Math.max(w.start, t.start);
    if (o > 0) overlap.set(t.speaker, (overlap.get(t.speaker) ?? 0) + o);
    const gap = Math.max(t.start - w.end, w.start - t.end, 0);
    if (gap < nearestGap) {
      nearestGap = gap;
      nearest = t;
    }
  }
  let best: string | undefined;
  let bestOverlap = 0;
  for (const [speaker, o] of overlap)
    if (o > bestOverlap) {
      best = speaker;
      bestOverlap = o;
    }
  // `turns` is not empty (the caller checks), so a nearest turn exists.
  return best ?? nearest!.speaker;
}

function renumberByFirstAppearance(words: Word[]): Word[] {
  const next = new Map<string, string>();
  for (const w of words)
    if (w.speaker !== undefined && !next.has(w.speaker)) next.set(w.speaker, `SPEAKER_${String(next.size).padStart(2, "0")}`);
  return words.map((w) => (w.speaker === undefined ? w : { ...w, speaker: next.get(w.speaker)! }));
}
