import type { Segment, Word } from "./transcript";
import { columns, endsSentence, joinWords as joinText, lineUnits, type LineUnit } from "./text-words";

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
}

const DEFAULTS = { maxLineChars: 42, maxLines: 2, minCueSec: 1, maxCueSec: 7, maxPauseSec: 0.7 };

export function buildCues(segments: readonly Segment[], options: CueOptions = {}): Cue[] {
  const o = { ...DEFAULTS, ...options };
  const maxChars = o.maxLineChars * o.maxLines;
  const groups: Word[][] = [];
  for (const seg of segments) {
    const words = seg.words?.length ? seg.words : spreadText(seg);
    let current: Word[] = [];
    for (const w of words) {
      const last = current.at(-1);
      const first = current[0];
      if (last && first) {
        const text = joinWords([...current, w]);
        const breakHere =
          isSentenceEnd(last.word) ||
          w.start - last.end > o.maxPauseSec ||
          w.end - first.start > o.maxCueSec ||
          !fitsLines(text, o.maxLineChars, o.maxLines) ||
          columns(text) > maxChars;
        if (breakHere) {
          groups.push(current);
          current = [];
        }
      }
      current.push(w);
    }
    if (current.length) groups.push(current);
  }
  const cues = groups.map((g) => ({
    start: g[0]!.start,
    end: Math.max(...g.map((w) => w.end)),
    lines: wrapLines(joinWords(g), o.maxLineChars, o.maxLines),
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

/** SRT has no escaping; an empty line would end the cue early, so lines never are empty. */
export function toSrt(segments: readonly Segment[], options?: CueOptions): string {
  return srtFromCues(buildCues(segments, options));
}

/** WebVTT cue text is HTML-like: `&`, `<` and `>` must be escaped, and `-->` may not appear. */
export function toVtt(segments: readonly Segment[], options?: CueOptions): string {
  return vttFromCues(buildCues(segments, options));
}

export function srtFromCues(cues: readonly Cue[]): string {
  return cues
    .map(
      (cue, i) =>
        `${i + 1}\n${formatTimestamp(cue.start, ",")} --> ${formatTimestamp(cue.end, ",")}\n${cue.lines.map(noArrow).join("\n")}\n`,
    )
    .join("\n");
}

export function vttFromCues(cues: readonly Cue[]): string {
  const escape = (s: string) => noArrow(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const body = cues.map(
    (cue, i) => `${i + 1}\n${formatTimestamp(cue.start, ".")} --> ${formatTimestamp(cue.end, ".")}\n${cue.lines.map(escape).join("\n")}\n`,
  );
  return `WEBVTT\n\n${body.join("\n")}`;
}

/**
 * One cue per segment at exactly the segment's times (translated subtitles: a cue is never merged
 * or split, so it matches the picture the source cue matched). Two balanced lines when the text
 * fits them, more lines rather than a split cue when it does not; a segment with no text has no cue.
 */
export function segmentCues(segments: readonly Pick<Segment, "start" | "end" | "text">[], maxLineChars = DEFAULTS.maxLineChars): Cue[] {
  return segments
    .filter((s) => s.text.trim() !== "")
    .map((s) => ({
      start: s.start,
      end: s.end,
      lines: wrapLines(s.text.trim(), maxLineChars, columns(s.text.trim()) <= maxLineChars * 2 ? 2 : Number.POSITIVE_INFINITY),
    }));
}

function noArrow(s: string): string {
  return s.replace(/-->/g, "->");
}

/** One segment per line: readable as prose while keeping the segment structure visible. */
export function toFullText(segments: readonly Segment[]): string {
  return segments.map((s) => s.text).join("\n") + (segments.length ? "\n" : "");
}

export interface SegmentsDocument {
  language: string;
  durationSec: number;
  engine: string;
  model: string;
  segments: readonly Segment[];
}

export function toSegmentsJson(doc: SegmentsDocument): string {
  return JSON.stringify(doc, null, 2) + "\n";
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
