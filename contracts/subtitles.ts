import type { Segment, Speaker, Word } from "./transcript";
import { columns, endsSentence, joinWords as joinText, lineUnits, type LineUnit } from "./text-words";
import { fileSpeakerName, speakerTurns, type SpeakerFileOptions } from "./speaker-turns";

/**
 * Transcript writers: SRT and WebVTT for players, plain text and segments JSON for people and
 * programs. Cues follow common broadcast practice: at most two lines of about 42 characters, a cue
 * never spans a sentence end or a long pause, no cue shorter than a reader can catch.
 */
export interface CueOptions {
  maxLineChars?: number;
  maxLines?: number;
  /** Cues shorter than this are extended into the following gap (never over the next cue). */
  minCueSec?: number;
  maxCueSec?: number;
  maxPauseSec?: number;
}

export interface Cue {
  start: number;
  end: number;
  lines: string[];
  /** Who speaks it, on a diarized transcript: a cue never holds two speakers' words. */
  speaker?: string;
}

/**
 * How a writer marks speakers: SRT by a `Name: ` prefix its cue building leaves room for, so a
 * prefixed cue still keeps to the line limits.
 */
interface CueBuilding extends CueOptions {
  /** The prefix of the first cue of each speaker turn; null: none. */
  turnPrefix?: (speaker: string) => string | null;
}

const DEFAULTS = { maxLineChars: 42, maxLines: 2, minCueSec: 1, maxCueSec: 7, maxPauseSec: 0.7 };

export function buildCues(segments: readonly Segment[], options: CueBuilding = {}): Cue[] {
  const { turnPrefix, ...rest } = options;
  const o = { ...DEFAULTS, ...rest };
  const maxChars = o.maxLineChars * o.maxLines;
  const groups: Array<{ words: Word[]; speaker: string | undefined; prefix: string }> = [];
  let previousSpeaker: string | undefined;
  for (const seg of segments) {
    const words = seg.words?.length ? seg.words : spreadText(seg);
    let current: Word[] = [];
    let speaker: string | undefined;
    let prefix = "";
    const close = () => {
      if (current.length === 0) return;
      groups.push({ words: current, speaker, prefix });
      previousSpeaker = speaker;
      current = [];
    };
    for (const w of words) {
      const last = current.at(-1);
      const first = current[0];
      const wordSpeaker = w.speaker ?? seg.speaker;
      if (last && first) {
        const text = prefix + joinWords([...current, w]);
        const breakHere =
          // Segments never span two speakers; words are checked too, so no cue ever could.
          wordSpeaker !== speaker ||
          isSentenceEnd(last.word) ||
          w.start - last.end > o.maxPauseSec ||
          w.end - first.start > o.maxCueSec ||
          !fitsLines(text, o.maxLineChars, o.maxLines) ||
          columns(text) > maxChars;
        if (breakHere) close();
      }
      if (current.length === 0) {
        speaker = wordSpeaker;
        prefix = wordSpeaker !== undefined && wordSpeaker !== previousSpeaker ? (turnPrefix?.(wordSpeaker) ?? "") : "";
      }
      current.push(w);
    }
    close();
  }
  const cues = groups.map((g) => ({
    start: g.words[0]!.start,
    end: Math.max(...g.words.map((w) => w.end)),
    lines: wrapLines(g.prefix + joinWords(g.words), o.maxLineChars, o.maxLines),
    ...(g.speaker !== undefined ? { speaker: g.speaker } : {}),
  }));
  return enforceTiming(cues, o.minCueSec);
}

/** Segments edited by hand may have text but no words: give each word an even share of the time. */
function spreadText(seg: Segment): Word[] {
  const tokens = seg.text.trim().split(/\s+/).filter(Boolean);
  const span = Math.max(0, seg.end - seg.start);
  return tokens.map((word, i) => ({
    word,
    start: seg.start + (span * i) / tokens.length,
    end: seg.start + (span * (i + 1)) / tokens.length,
  }));
}

function fitsLines(text: string, maxLineChars: number, maxLines: number): boolean {
  return wrapLines(text, maxLineChars, maxLines + 1).length <= maxLines;
}

/**
 * Breaks text into at most `maxLines` lines at word boundaries, balancing line lengths (a two-line
 * cue reads better as two similar lines than as a full line and a dangling word). Lengths are in
 * columns, a full-width CJK character counting two, and Chinese or Japanese breaks between words
 * that have no space between them.
 */
export function wrapLines(text: string, maxLineChars: number, maxLines: number): string[] {
  const units = lineUnits(text);
  const whole = joinUnits(units);
  if (columns(whole) <= maxLineChars || units.length < 2) return [whole];
  if (maxLines === 2) {
    let best: string[] | null = null;
    let bestScore = Number.POSITIVE_INFINITY;
    for (let i = 1; i < units.length; i++) {
      const a = joinUnits(units.slice(0, i));
      const b = joinUnits(units.slice(i));
      const over = Math.max(0, columns(a) - maxLineChars) + Math.max(0, columns(b) - maxLineChars);
      const score = over * 1000 + Math.abs(columns(a) - columns(b));
      if (score < bestScore) {
        bestScore = score;
        best = [a, b];
      }
    }
    if (best) return best;
  }
  const lines: string[] = [];
  let line: LineUnit[] = [];
  for (const u of units) {
    if (line.length > 0 && columns(joinUnits([...line, u])) > maxLineChars) {
      lines.push(joinUnits(line));
      line = [u];
    } else line.push(u);
  }
  if (line.length > 0) lines.push(joinUnits(line));
  return lines;
}

function joinUnits(units: readonly LineUnit[]): string {
  return units.map((u, i) => (i > 0 && u.spaceBefore ? ` ${u.text}` : u.text)).join("");
}

/** Extends short cues into the gap after them and removes overlaps, so players never stack cues. */
function enforceTiming(cues: Cue[], minCueSec: number): Cue[] {
  const out: Cue[] = [];
  for (let i = 0; i < cues.length; i++) {
    const cue = { ...cues[i]! };
    const next = cues[i + 1];
    if (cue.end - cue.start < minCueSec) cue.end = next ? Math.min(cue.start + minCueSec, next.start) : cue.start + minCueSec;
    if (next && cue.end > next.start) cue.end = next.start;
    if (cue.end <= cue.start) cue.end = cue.start + 0.001;
    out.push(cue);
  }
  return out;
}

/** `HH:MM:SS,mmm` (SRT) or `HH:MM:SS.mmm` (VTT), computed in integer milliseconds so 59.9996 s never prints as `00:00:60,000`. */
export function formatTimestamp(seconds: number, separator: "," | "."): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const ms = totalMs % 1000;
  const totalSec = Math.floor(totalMs / 1000);
  const s = totalSec % 60;
  const m = Math.floor(totalSec / 60) % 60;
  const h = Math.floor(totalSec / 3600);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms, 3)}`;
}

/**
 * SRT has no escaping; an empty line would end the cue early, so lines never are empty. SRT has no
 * speaker markup either, so a speaker is named by a `Name: ` prefix on the first cue of each turn
 * only: the name reads once where the voice changes, as in a printed transcript, and the cues after
 * it keep their two lines for what is said (on every cue, a name would take a quarter of a
 * 42-character line, and the reading time with it). Cue building leaves room for the prefix.
 */
export function toSrt(segments: readonly Segment[], speakers?: SpeakerFileOptions, options?: CueOptions): string {
  const turnPrefix = (label: string) => {
    const name = fileSpeakerName(label, speakers);
    return name === null ? null : `${name}: `;
  };
  return srtFromCues(buildCues(segments, { ...options, turnPrefix }));
}

/**
 * WebVTT cue text is HTML-like: `&`, `<` and `>` must be escaped, and `-->` may not appear. A
 * diarized transcript's cues each open with a voice span, `<v Name>`, the format's own speaker
 * markup: players may show or style it, and every cue says who speaks it.
 */
export function toVtt(segments: readonly Segment[], speakers?: SpeakerFileOptions, options?: CueOptions): string {
  const voice = (cue: Cue) => (cue.speaker === undefined ? null : fileSpeakerName(cue.speaker, speakers));
  return vttFromCues(buildCues(segments, options), voice);
}

export function srtFromCues(cues: readonly Cue[]): string {
  return cues
    .map(
      (cue, i) =>
        `${i + 1}\n${formatTimestamp(cue.start, ",")} --> ${formatTimestamp(cue.end, ",")}\n${cue.lines.map(noArrow).join("\n")}\n`,
    )
    .join("\n");
}

/** `voice`: the name to open a cue with as a WebVTT voice span; null: no span. */
export function vttFromCues(cues: readonly Cue[], voice: (cue: Cue) => string | null = () => null): string {
  const body = cues.map((cue, i) => {
    const name = voice(cue);
    const span = name === null ? "" : `<v ${escapeVtt(name)}>`;
    return `${i + 1}\n${formatTimestamp(cue.start, ".")} --> ${formatTimestamp(cue.end, ".")}\n${span}${cue.lines.map(escapeVtt).join("\n")}\n`;
  });
  return `WEBVTT\n\n${body.join("\n")}`;
}

/** Cue text and a voice span's annotation alike take character references for `&`, `<` and `>`. */
function escapeVtt(s: string): string {
  return noArrow(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * One cue per segment at exactly the segment's times (translated subtitles: a cue is never merged
 * or split, so it matches the picture the source cue matched). Two balanced lines when the text
 * fits them, more lines rather than a split cue when it does not; a segment with no text has no cue.
 */
export function segmentCues(
  segments: readonly Pick<Segment, "start" | "end" | "text" | "speaker">[],
  maxLineChars = DEFAULTS.maxLineChars,
): Cue[] {
  return segments
    .filter((s) => s.text.trim() !== "")
    .map((s) => ({
      start: s.start,
      end: s.end,
      lines: wrapLines(s.text.trim(), maxLineChars, columns(s.text.trim()) <= maxLineChars * 2 ? 2 : Number.POSITIVE_INFINITY),
      ...(s.speaker !== undefined ? { speaker: s.speaker } : {}),
    }));
}

/**
 * Translated subtitles with speakers: SRT names the speaker before the first cue of each turn, WebVTT
 * opens every cue with a voice span, as the transcript's own files do (toSrt, toVtt). The cues keep
 * the segments' times, so a name may lengthen a first line rather than move a cue.
 */
export function segmentSubtitles(cues: readonly Cue[], speakers?: SpeakerFileOptions): { srt: string; vtt: string } {
  let previous: string | undefined;
  const prefixed = cues.map((cue) => {
    const turnStarts = cue.speaker !== undefined && cue.speaker !== previous;
    previous = cue.speaker;
    const name = turnStarts ? fileSpeakerName(cue.speaker!, speakers) : null;
    return name === null ? cue : { ...cue, lines: [`${name}: ${cue.lines[0] ?? ""}`, ...cue.lines.slice(1)] };
  });
  const voice = (cue: Cue) => (cue.speaker === undefined ? null : fileSpeakerName(cue.speaker, speakers));
  return { srt: srtFromCues(prefixed), vtt: vttFromCues(cues, voice) };
}

function noArrow(s: string): string {
  return s.replace(/-->/g, "->");
}

/**
 * Without speakers, one segment per line: readable as prose while keeping the segment structure
 * visible. With them, one line per speaker turn with `Name: ` before it, as a transcript reads.
 */
export function toFullText(segments: readonly Segment[], speakers?: SpeakerFileOptions): string {
  const named = segments.some((s) => s.speaker !== undefined && fileSpeakerName(s.speaker, speakers) !== null);
  const lines = named
    ? speakerTurns(segments).map((turn) => {
        const name = turn.speaker === undefined ? null : fileSpeakerName(turn.speaker, speakers);
        const text = joinText(turn.segments.map((s) => s.text));
        return name === null ? text : `${name}: ${text}`;
      })
    : segments.map((s) => s.text);
  return lines.join("\n") + (lines.length ? "\n" : "");
}

export interface SegmentsDocument {
  language: string;
  durationSec: number;
  engine: string;
  model: string;
  /** What told the speakers apart; null or absent: not diarized. */
  diarization?: { engine: string; model: string } | null | undefined;
  speakers?: readonly Speaker[] | undefined;
  segments: readonly Segment[];
}

/**
 * The transcript for programs. Speakers are data here, not presentation: the list (with the names
 * as they are when the file is written) and each segment's `speaker` are always in it, `[]` and
 * absent on a transcript that was not diarized.
 */
export function toSegmentsJson(doc: SegmentsDocument): string {
  const { language, durationSec, engine, model, diarization, speakers, segments } = doc;
  const out = { language, durationSec, engine, model, diarization: diarization ?? null, speakers: speakers ?? [], segments };
  return JSON.stringify(out, null, 2) + "\n";
}

/** A segment also ends at an ellipsis, where a caption line does not. */
export function isSentenceEnd(word: string): boolean {
  return endsSentence(word) || /…["'”’)\]」』）]*$/u.test(word);
}

/**
 * Joins tokens as the language writes them: single spaces, none between words of scripts written
 * without spaces (Chinese, Japanese, Thai…); Whisper-style tokens that carry their own leading space are trimmed first.
 */
export function joinWords(words: readonly Word[]): string {
  return joinText(words.map((w) => w.word));
}
