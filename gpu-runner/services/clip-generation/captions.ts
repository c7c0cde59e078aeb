import { columns, endsSentence, joinWords, spaceBetween } from "../../../contracts/text-words";
import type { TimedWord } from "./timeline";

/**
 * Burned-in word captions as an ASS subtitle file for libass (ffmpeg's `ass` filter). Words are
 * grouped into captions of at most two lines; each caption is shown from its first word to its
 * last, and the word being spoken is highlighted: one ASS event per word, each showing the whole
 * caption with that word in the highlight colour, so the highlight moves exactly on the word times.
 */

export interface CaptionStyle {
  width: number;
  height: number;
  /** Width of a line before wrapping, in columns of a Latin character (a CJK character is two). */
  lineChars: number;
  fontSize: number;
  /** Distance of the caption's baseline from the bottom edge, pixels. */
  marginV: number;
}

/** Caption placement per output shape: above the platforms' bottom UI on portrait, lower on landscape. */
export function captionStyleFor(width: number, height: number, opts: { belowY?: number } = {}): CaptionStyle {
  const portrait = height > width;
  const fontSize = Math.round(Math.min(width, height) * (portrait ? 0.074 : 0.056));
  const lineChars = portrait ? 18 : height === width ? 22 : 34;
  // Under a letterboxed picture (horizontal_in_vertical), the captions sit just below it.
  const marginV =
    opts.belowY !== undefined ? Math.max(40, height - opts.belowY - fontSize * 3) : Math.round(height * (portrait ? 0.22 : 0.08));
  return { width, height, lineChars, fontSize, marginV };
}

export interface Caption {
  start: number;
  end: number;
  words: TimedWord[];
  lines: TimedWord[][];
}

/** Groups clip-relative words into captions: at most two lines, broken at pauses, sentence ends and speaker turns. */
export function groupCaptions(words: readonly TimedWord[], lineChars: number, pauseSec = 0.6): Caption[] {
  const captions: Caption[] = [];
  let lines: TimedWord[][] = [[]];
  const flush = () => {
    const ws = lines.flat();
    if (ws.length > 0)
      captions.push({ start: ws[0]!.start, end: ws[ws.length - 1]!.end, words: ws, lines: lines.filter((l) => l.length > 0) });
    lines = [[]];
  };
  words.forEach((w, i) => {
    let line = lines[lines.length - 1]!;
    if (line.length > 0 && columns(joinWords([...line, w].map((x) => x.word))) > lineChars) {
      if (lines.length === 2) flush();
      else lines.push([]);
      line = lines[lines.length - 1]!;
    }
    line.push(w);
    const next = words[i + 1];
    // A caption is one speaker's: a turn change ends it, whatever the pause.
    if (!next || next.start - w.end >= pauseSec || endsSentence(w.word) || next.speaker !== w.speaker) flush();
  });
  flush();
  // Hold each caption until the next one starts when the gap is short, so captions do not flicker.
  for (let i = 0; i + 1 < captions.length; i++) {
    const c = captions[i]!;
    const next = captions[i + 1]!;
    if (next.start - c.end < 0.4) c.end = next.start;
  }
  return captions;
}

/**
 * A word as text libass draws literally. libass ends an event's line at `\r` and `\n` (a word
 * holding one would start a line of its own in the file: another event, another style); other
 * control characters and Unicode's line and paragraph separators become spaces too. Its only
 * escapes are `\N`, `\n`, `\h`, `\{` and `\}` (there is none for a backslash), so a backslash is
 * followed by a word joiner (U+2060, invisible) and can never form one; braces, which open and
 * close override blocks, are escaped.
 */
export const escapeAss = (s: string): string =>
  s
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ")
    .replace(/\\/g, "\\\u2060")
    .replace(/\{/g, "\\{")
    .replace(/\}/g, "\\}");

function assTime(sec: number): string {
  const cs = Math.max(0, Math.round(sec * 100));
  const h = Math.floor(cs / 360000);
  const m = Math.floor((cs % 360000) / 6000);
  const s = Math.floor((cs % 6000) / 100);
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${String(cs % 100).padStart(2, "0")}`;
}

/** Highlight colour (ASS is &HBBGGRR): a warm yellow, readable on the white text's outline. */
const HIGHLIGHT = "&H0033D7FF&";

/** One caption line in ASS, `spoken` in the highlight colour, words spaced as their script writes them. */
function lineText(line: readonly TimedWord[], spoken: TimedWord): string {
  return line
    .map((x, i) => {
      const space = i > 0 && spaceBetween(line[i - 1]!.word.trim(), x.word.trim()) ? " " : "";
      const word = escapeAss(x.word.trim());
      return space + (x === spoken ? `{\\c${HIGHLIGHT}}${word}{\\c&H00FFFFFF&}` : word);
    })
    .join("");
}

/** The speaker's name above a caption: smaller than the words, in the highlight colour. */
const nameLine = (name: string, style: CaptionStyle): string =>
  `{\\fs${Math.round(style.fontSize * 0.62)}\\c${HIGHLIGHT}}${escapeAss(name.trim())}{\\r}\\N`;

/**
 * The whole .ass document for one clip; `words` are relative to the clip's start. When more than one
 * speaker talks in the clip, the first caption of each turn carries the speaker's name (`names`: by
 * label, a person's name or the label) so a viewer knows who answers whom; a clip of one voice needs none.
 */
export function buildAss(words: readonly TimedWord[], style: CaptionStyle, names: Readonly<Record<string, string>> = {}): string {
  const captions = groupCaptions(words, style.lineChars);
  const voices = new Set(words.flatMap((w) => (w.speaker !== undefined ? [w.speaker] : [])));
  const header = [
    "[Script Info]",
    "ScriptType: v4.00+",
    `PlayResX: ${style.width}`,
    `PlayResY: ${style.height}`,
    "WrapStyle: 2",
    "ScaledBorderAndShadow: yes",
    "",
    "[V4+ Styles]",
    "Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding",
    `Style: Caption,Noto Sans,${style.fontSize},&H00FFFFFF,&H00FFFFFF,&H00101010,&H96000000,-1,0,0,0,100,100,0,0,1,${Math.max(2, Math.round(style.fontSize / 12))},${Math.max(1, Math.round(style.fontSize / 24))},2,60,60,${style.marginV},1`,
    "",
    "[Events]",
    "Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text",
  ];
  const events: string[] = [];
  let lastSpeaker: string | undefined;
  for (const c of captions) {
    const speaker = c.words[0]!.speaker;
    const name = voices.size > 1 && speaker !== undefined && speaker !== lastSpeaker ? nameLine(names[speaker] ?? speaker, style) : "";
    lastSpeaker = speaker;
    c.words.forEach((w, i) => {
      const from = i === 0 ? c.start : w.start;
      const to = i + 1 < c.words.length ? c.words[i + 1]!.start : c.end;
      if (to <= from) return;
      const text = name + c.lines.map((line) => lineText(line, w)).join("\\N");
      events.push(`Dialogue: 0,${assTime(from)},${assTime(to)},Caption,,0,0,0,,${text}`);
    });
  }
  return [...header, ...events, ""].join("\n");
}
