import type { TranslatedSegment } from "../../../contracts/services/translation";
import type { SpeakerTurn } from "../../engines/diarization/interface";

/**
 * Where each dubbed segment may speak, and who speaks it.
 *
 * A slot starts at its source segment's start (dubbed speech starts with the speaker's lips) and
 * runs to the source segment's end plus a short grace (SLOT_GRACE_SEC, so a slightly longer
 * translation need not be compressed when the speaker pauses anyway), never past the next
 * segment's start or the end of the media: speech never overlaps the next segment.
 */
export const SLOT_GRACE_SEC = 0.5;

export interface Slot {
  id: number;
  start: number;
  end: number;
  sourceEnd: number;
  text: string;
}

export function slotsFor(segments: readonly TranslatedSegment[], durationSec: number): Slot[] {
  const sorted = [...segments].sort((a, b) => a.start - b.start || a.id - b.id);
  return sorted.map((s, i) => {
    const next = sorted[i + 1];
    const limit = Math.min(next ? next.start : durationSec, durationSec);
    const end = Math.max(Math.min(s.end + SLOT_GRACE_SEC, limit), Math.min(s.end, limit));
    return { id: s.id, start: s.start, end: Math.max(end, s.start), sourceEnd: s.end, text: s.text };
  });
}

/** The speaker of a slot: the label whose turns overlap it most; the nearest turn when none overlaps. */
export function speakerOf(slot: { start: number; end: number }, turns: readonly SpeakerTurn[], fallback = "SPEAKER_00"): string {
  let best: { speaker: string; overlap: number } | null = null;
  const totals = new Map<string, number>();
  for (const t of turns) {
    const overlap = Math.min(slot.end, t.end) - Math.max(slot.start, t.start);
    if (overlap > 0) totals.set(t.speaker, (totals.get(t.speaker) ?? 0) + overlap);
  }
  for (const [speaker, overlap] of totals) if (!best || overlap > best.overlap) best = { speaker, overlap };
  if (best) return best.speaker;
  let nearest: { speaker: string; gap: number } | null = null;
  for (const t of turns) {
    const gap = t.end < slot.start ? slot.start - t.end : t.start - slot.end;
    if (!nearest || gap < nearest.gap) nearest = { speaker: t.speaker, gap };
  }
  return nearest?.speaker ?? fallback;
}

/** A speaker's stretches of speech, for measuring their voice. */
export function rangesOf(speaker: string, turns: readonly SpeakerTurn[]): Array<{ start: number; end: number }> {
  return turns.filter((t) => t.speaker === speaker).map(({ start, end }) => ({ start, end }));
}

/** Speech stretches of the source (its segments, merged across short gaps): what the mix ducks. */
export function speechStretches(
  segments: readonly { start: number; end: number }[],
  mergeGapSec = 0.3,
): Array<{ start: number; end: number }> {
  const out: Array<{ start: number; end: number }> = [];
  for (const s of [...segments].sort((a, b) => a.start - b.start)) {
    const last = out.at(-1);
    if (last && s.start - last.end <= mergeGapSec) last.end = Math.max(last.end, s.end);
    else out.push({ start: s.start, end: s.end });
  }
  return out;
}
