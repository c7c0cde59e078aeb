import type { Diarization, SpeakerTurn } from "./interface";

/**
 * Turns as every backend hands them over: sorted, clipped so they never overlap, neighbours of the
 * same speaker joined, and labels renamed `SPEAKER_00`, `SPEAKER_01`, … by first appearance, so a
 * backend's own names (`A`, `SPEAKER_03`, a cluster number) never leak into results.
 */
export interface RawTurn {
  start: number;
  end: number;
  /** Any name the backend uses; equal names are the same speaker. */
  speaker: string | number;
}

/** `SPEAKER_00` … `SPEAKER_99` (the dubbing contract's voice assignments use this form). */
export function speakerLabel(index: number): string {
  return `SPEAKER_${String(index).padStart(2, "0")}`;
}

/**
 * Normalises raw turns. Where two turns overlap (hosted models report overlapped speech), the later
 * one starts where the earlier ends; a turn left empty is dropped. Same-speaker neighbours closer
 * than `joinGapSec` become one turn.
 */
export function normaliseTurns(raw: readonly RawTurn[], joinGapSec = 0): Diarization {
  const sorted = raw
    .filter((t) => Number.isFinite(t.start) && Number.isFinite(t.end) && t.end > t.start)
    .map((t) => ({ start: Math.max(0, t.start), end: t.end, speaker: String(t.speaker) }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: { start: number; end: number; speaker: string }[] = [];
  for (const t of sorted) {
    const prev = merged.at(-1);
    const start = prev ? Math.max(t.start, prev.end) : t.start;
    if (t.end <= start) continue;
    if (prev && prev.speaker === t.speaker && start - prev.end <= joinGapSec) prev.end = Math.max(prev.end, t.end);
    else merged.push({ start, end: t.end, speaker: t.speaker });
  }
  const labels = new Map<string, string>();
  const turns: SpeakerTurn[] = merged.map((t) => {
    let label = labels.get(t.speaker);
    if (label === undefined) {
      label = speakerLabel(labels.size);
      labels.set(t.speaker, label);
    }
    return { start: round(t.start), end: round(t.end), speaker: label };
  });
  return { turns, speakers: [...labels.values()] };
}

/** Milliseconds are as fine as any backend resolves speaker changes. */
function round(sec: number): number {
  return Math.round(sec * 1000) / 1000;
}
