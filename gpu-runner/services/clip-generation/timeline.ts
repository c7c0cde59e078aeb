import type { ClipTranscript } from "../../../contracts/clips";
import { endsSentence, joinWords } from "../../../contracts/text-words";

/**
 * One timeline for the moment finder: words, sentences, pauses, loudness, scene cuts and speaker
 * activity, all in seconds of the source.
 */

export interface TimedWord {
  word: string;
  start: number;
  end: number;
  /** Who said it, on a diarized transcript. */
  speaker?: string;
}

export interface Sentence {
  index: number;
  start: number;
  end: number;
  words: TimedWord[];
  text: string;
  /** The sentence ends with . ? or ! (engines that punctuate), or with a long pause (those that do not). */
  final: boolean;
  /** Silence after the sentence, seconds (Infinity for the last one). */
  pauseAfter: number;
}

/** Loudness samples (RMS dBFS), one per `step` seconds from 0. */
export interface EnergyTrack {
  step: number;
  db: number[];
}

export interface Timeline {
  durationSec: number;
  words: TimedWord[];
  sentences: Sentence[];
  /** Scene cut times. */
  cuts: number[];
  energy: EnergyTrack;
  /** Times at which the active speaker changes (from the vision analysis; empty without it). */
  speakerChanges: number[];
}

/** Markers engines emit for non-speech; they are not words a caption or a title may show. */
const NON_WORD = /^(<.*>|\[.*\]|\(.*\))$/;

/** Every word of the transcript in time order; segments without word timings get evenly spread words. */
export function wordsOf(transcript: ClipTranscript): TimedWord[] {
  const words: TimedWord[] = [];
  for (const seg of transcript.segments) {
    if (seg.words && seg.words.length > 0) {
      for (const w of seg.words)
        if (!NON_WORD.test(w.word) && w.word.trim() !== "")
          words.push({ word: w.word.trim(), start: w.start, end: w.end, ...spokenBy(seg) });
      continue;
    }
    const tokens = seg.text.split(/\s+/).filter((t) => t !== "" && !NON_WORD.test(t));
    const step = tokens.length > 0 ? (seg.end - seg.start) / tokens.length : 0;
    tokens.forEach((word, i) => words.push({ word, start: seg.start + i * step, end: seg.start + (i + 1) * step, ...spokenBy(seg) }));
  }
  return words.sort((a, b) => a.start - b.start);
}

const spokenBy = (seg: { speaker?: string | undefined }): { speaker?: string } =>
  seg.speaker !== undefined ? { speaker: seg.speaker } : {};

/** What a caption shows for each speaker label of the transcript: its name, else the label. */
export function speakerNamesOf(transcript: ClipTranscript): Record<string, string> {
  return Object.fromEntries((transcript.speakers ?? []).map((s) => [s.label, s.name ?? s.label]));
}

/**
 * Splits words into sentences: at sentence-final punctuation, or, for engines that do not
 * punctuate (PocketSphinx), at a pause of at least `pauseSec`. A run of speech longer than
 * `maxSentenceSec` without either is split at its longest pause, so no sentence outgrows a clip.
 */
export function buildSentences(words: readonly TimedWord[], pauseSec: number, maxSentenceSec = 20): Sentence[] {
  const groups: TimedWord[][] = [];
  let current: TimedWord[] = [];
  words.forEach((w, i) => {
    current.push(w);
    const next = words[i + 1];
    const gap = next ? next.start - w.end : Number.POSITIVE_INFINITY;
    if (/[.?!]["')\]]*$/.test(w.word) || gap >= pauseSec) {
      groups.push(current);
      current = [];
    }
  });
  if (current.length > 0) groups.push(current);
  const bounded = groups.flatMap((g) => splitLong(g, maxSentenceSec));
  return bounded.map((g, index) => {
    const last = g[g.length - 1]!;
    const next = bounded[index + 1]?.[0];
    const pauseAfter = next ? Math.max(0, next.start - last.end) : Number.POSITIVE_INFINITY;
    return {
      index,
      start: g[0]!.start,
      end: last.end,
      words: g,
      text: joinWords(g.map((w) => w.word)),
      final: endsSentence(last.word) || pauseAfter >= pauseSec,
      pauseAfter,
    };
  });
}

function splitLong(g: TimedWord[], maxSec: number): TimedWord[][] {
  if (g.length < 2 || g[g.length - 1]!.end - g[0]!.start <= maxSec) return [g];
  let cut = 1;
  let widest = -1;
  for (let i = 1; i < g.length; i++) {
    const gap = g[i]!.start - g[i - 1]!.end;
    // Prefer gaps near the middle when several are equally wide.
    const centred = gap - Math.abs(i - g.length / 2) * 1e-6;
    if (centred > widest) {
      widest = centred;
      cut = i;
    }
  }
  return [...splitLong(g.slice(0, cut), maxSec), ...splitLong(g.slice(cut), maxSec)];
}

/** Mean loudness (dBFS) over [start, end); -90 where there is no audio. */
export function meanEnergy(track: EnergyTrack, start: number, end: number): number {
  const from = Math.max(0, Math.floor(start / track.step));
  const to = Math.min(track.db.length, Math.ceil(end / track.step));
  if (to <= from) return -90;
  let sum = 0;
  for (let i = from; i < to; i++) sum += track.db[i] ?? -90;
  return sum / (to - from);
}

/** Number of times in [start, end). */
export function countIn(times: readonly number[], start: number, end: number): number {
  return times.filter((t) => t >= start && t < end).length;
}
