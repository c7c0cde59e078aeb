import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { PiiEntityType, RedactedAudioMode, RedactedSpan } from "../../contracts/redaction";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { mergeSpans, spansInCut, type AudioSpan } from "../../gpu-runner/media/redacted-audio";
import { openSource } from "../../gpu-runner/media/source";
import { measureLoudness } from "../../gpu-runner/services/clip-generation/media";
import { cropSize, renderClip } from "../../gpu-runner/services/clip-generation/render";
import { extractTracks } from "../../gpu-runner/services/dubbing/audio";
import { buildOnce, concatPcm, RATE, speak, toPcm16, wavBytes } from "./synthetic-speech";

/**
 * Speech whose every word's timing is known, for measuring how the audio of redacted words is
 * silenced (issue 25: "every redacted word's audio silenced within 50 ms of its timing"): eSpeak NG
 * speaks each word alone, the words are laid end to end with fixed pauses over a room-noise floor
 * (−45 dBFS, so a pause is never mistaken for silencing), and a transcript's redacted spans are the
 * planted entities' first and last word timings. Shared by test/media/redacted-audio.test.ts and
 * bench/redaction-audio.ts.
 */

const run = promisify(execFile);
const CACHE = path.join(os.tmpdir(), "media-jobs-redacted-speech-v1");
const LEAD_SEC = 0.6;
const GAP_SEC = 0.14;
/** Uniform noise of ±300 (RMS about −45 dBFS): a quiet room, far above the −60 dBFS of silence. */
const NOISE = 300;

/** The script: sentences with entities planted at known words (`[from, to)` word indexes of the whole script). */
const SCRIPT = [
  "my name is john smith and you can write to john at example dot com",
  "or call me on five five five zero one nine two before friday",
  "my colleague maria lopez was born on march third nineteen eighty",
  "send the card number four one one one to anna right away",
]
  .join(" ")
  .split(" ");

const ENTITIES: ReadonlyArray<{ type: PiiEntityType; words: string }> = [
  { type: "PERSON", words: "john smith" },
  { type: "EMAIL", words: "john at example dot com" },
  { type: "PHONE", words: "five five five zero one nine two" },
  { type: "PERSON", words: "maria lopez" },
  { type: "DATE_OF_BIRTH", words: "march third nineteen eighty" },
  { type: "CARD_NUMBER", words: "four one one one" },
  { type: "PERSON", words: "anna" },
];

export interface SpokenWord {
  word: string;
  start: number;
  end: number;
}

export interface RedactedSpeech {
  /** 16 kHz mono WAV of the script. */
  wav: string;
  /** The same sound under a plain picture: MP4, H.264 + AAC, as a customer's source would be. */
  video: string;
  samples: Int16Array;
  words: SpokenWord[];
  /** Each planted entity's span, from its first word's start to its last word's end. */
  spans: RedactedSpan[];
  durationSec: number;
}

function noiseFloor(n: number, seed: number): Int16Array {
  const out = new Int16Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = Math.round(((s / 0x7fffffff) * 2 - 1) * NOISE);
  }
  return out;
}

/** Word indexes of each entity, found in order in the script. */
function entityWords(): Array<{ type: PiiEntityType; from: number; to: number }> {
  let at = 0;
  return ENTITIES.map(({ type, words }) => {
    const w = words.split(" ");
    for (let i = at; i + w.length <= SCRIPT.length; i++) {
      if (w.every((x, k) => SCRIPT[i + k] === x)) {
        at = i + w.length;
        return { type, from: i, to: i + w.length };
      }
    }
    throw new Error(`entity not in the script: ${words}`);
  });
}

/** The script spoken word by word with known timings, its video and its planted entities' spans (built once per machine). */
export async function redactedSpeech(): Promise<RedactedSpeech> {
  const wav = path.join(CACHE, "script.wav");
  const video = path.join(CACHE, "script.mp4");
  const timings = path.join(CACHE, "words.json");
  await buildOnce(CACHE, ["script.wav", "script.mp4", "words.json"], async (scratch) => {
    const parts: Int16Array[] = [];
    const words: SpokenWord[] = [];
    let t = LEAD_SEC;
    parts.push(new Int16Array(Math.round(LEAD_SEC * RATE)));
    for (const [i, word] of SCRIPT.entries()) {
      const pcm = await speak({ engine: "espeak-ng", voice: "en-us" }, word, scratch, `w${i}`);
      words.push({ word, start: t, end: t + pcm.length / RATE });
      parts.push(pcm, new Int16Array(Math.round(GAP_SEC * RATE)));
      t += (pcm.length + Math.round(GAP_SEC * RATE)) / RATE;
    }
    parts.push(new Int16Array(Math.round(LEAD_SEC * RATE)));
    const speech = concatPcm(parts);
    const noise = noiseFloor(speech.length, 12345);
    for (let i = 0; i < speech.length; i++) speech[i] = Math.max(-32768, Math.min(32767, speech[i]! + noise[i]!));
    await writeFile(path.join(scratch, "script.wav"), wavBytes(speech));
    const dur = (speech.length / RATE).toFixed(3);
    await run("ffmpeg", [
      ...["-hide_banner", "-loglevel", "error", "-y"],
      ...["-f", "lavfi", "-i", `color=c=0x336699:s=320x240:r=30:d=${dur}`],
      ...["-i", path.join(scratch, "script.wav")],
      ...["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-shortest"],
      path.join(scratch, "script.mp4"),
    ]);
    await writeFile(path.join(scratch, "words.json"), JSON.stringify(words));
  });
  const words = JSON.parse(await readFile(timings, "utf8")) as SpokenWord[];
  const samples = await toPcm16(wav);
  const spans = entityWords().map(({ type, from, to }) => ({ type, start: words[from]!.start, end: words[to - 1]!.end }));
  return { wav, video, samples, words, spans, durationSec: samples.length / RATE };
}

/** RMS level in dBFS of each `frameSec` frame of 16 kHz samples. */
export function frameLevels(samples: Int16Array, frameSec: number): number[] {
  const n = Math.max(1, Math.round(frameSec * RATE));
  const out: number[] = [];
  for (let i = 0; i + n <= samples.length; i += n) {
    let sum = 0;
    for (let k = i; k < i + n; k++) sum += (samples[k]! / 32768) ** 2;
    out.push(10 * Math.log10(sum / n + 1e-20));
  }
  return out;
}

/** Below this a frame is silence. */
export const SILENCE_DBFS = -60;
/** The tolerance: a redacted word's audio is silenced within this of its timing. */
export const TOLERANCE_SEC = 0.05;

export interface SpanFigures {
  span: AudioSpan;
  /** 10 ms frames inside the span shrunk by the tolerance at each edge, and how many of them are silence. */
  framesInside: number;
  silentInside: number;
  loudestInsideDb: number;
  /** Silenced run around the span (1 ms resolution) against the span's edges, ms: + is silenced beyond the word, − is word left audible. Null: the span's middle is not silent. */
  startErrorMs: number | null;
  endErrorMs: number | null;
}

export interface RedactionFigures {
  spans: SpanFigures[];
  /** 10 ms frames outside every span grown by the tolerance, and the largest level difference from the unredacted render there. */
  framesOutside: number;
  largestOutsideDiffDb: number;
}

/**
 * Measures `out` (16 kHz samples of the redacted audio) against `baseline` (the same audio rendered the
 * same way with nothing redacted), over `spans` in their timeline.
 */
export function measureRedaction(out: Int16Array, baseline: Int16Array, spans: readonly AudioSpan[]): RedactionFigures {
  const frame = 0.01;
  const levels = frameLevels(out, frame);
  const base = frameLevels(baseline, frame);
  const fine = frameLevels(out, 0.001);
  const frameAt = (t: number) => Math.floor(t / frame);
  const figures = spans.map((span): SpanFigures => {
    const inside: number[] = [];
    for (let f = Math.ceil((span.start + TOLERANCE_SEC) / frame); (f + 1) * frame <= span.end - TOLERANCE_SEC; f++)
      if (f < levels.length) inside.push(levels[f]!);
    const mid = Math.floor(((span.start + span.end) / 2) * 1000);
    let startErrorMs: number | null = null;
    let endErrorMs: number | null = null;
    if ((fine[mid] ?? 0) < SILENCE_DBFS) {
      let a = mid;
      while (a > 0 && fine[a - 1]! < SILENCE_DBFS) a--;
      let b = mid;
      while (b + 1 < fine.length && fine[b + 1]! < SILENCE_DBFS) b++;
      startErrorMs = Math.round(span.start * 1000 - a);
      endErrorMs = Math.round(b + 1 - span.end * 1000);
    }
    return {
      span,
      framesInside: inside.length,
      silentInside: inside.filter((db) => db < SILENCE_DBFS).length,
      loudestInsideDb: inside.length > 0 ? Math.max(...inside) : Number.NEGATIVE_INFINITY,
      startErrorMs,
      endErrorMs,
    };
  });
  const near = new Set<number>();
  for (const s of spans) for (let f = frameAt(Math.max(0, s.start - TOLERANCE_SEC)); f <= frameAt(s.end + TOLERANCE_SEC); f++) near.add(f);
  let framesOutside = 0;
  let largestOutsideDiffDb = 0;
  for (let f = 0; f < Math.min(levels.length, base.length); f++) {
    if (near.has(f)) continue;
    framesOutside++;
    largestOutsideDiffDb = Math.max(largestOutsideDiffDb, Math.abs(levels[f]! - base[f]!));
  }
  return { spans: figures, framesOutside, largestOutsideDiffDb };
}

/** The worst edge error of a span, ms (null when its middle is not silent at all). */
export const worstEdgeMs = (s: SpanFigures): number | null =>
  s.startErrorMs === null || s.endErrorMs === null ? null : Math.max(Math.abs(s.startErrorMs), Math.abs(s.endErrorMs));

/** A cut of the script's video: from `from` to `to`, seconds of the source. */
export interface Cut {
  from: number;
  to: number;
}

/**
 * The cut rendered as a clip is (gpu-runner/services/clip-generation/render.ts: loudness measured
 * first, then the two-pass loudnorm, AAC in MP4), with the spans redacted or none; its audio as 16 kHz
 * mono samples.
 */
export async function renderedClipAudio(
  speech: RedactedSpeech,
  cut: Cut,
  redaction: { spans: readonly RedactedSpan[]; mode: RedactedAudioMode } | null,
  output: string,
  signal: AbortSignal,
): Promise<Int16Array> {
  const source = await openSource(speech.video, { kind: "video", limits: DEFAULT_SETTINGS.runner, signal });
  const durationSec = cut.to - cut.from;
  const spans = redaction ? mergeSpans(spansInCut(redaction.spans, cut)) : [];
  await renderClip({
    source,
    output,
    start: cut.from,
    durationSec,
    layout: "horizontal_16_9",
    fillStyle: null,
    srcW: 320,
    srcH: 240,
    crop: null,
    ...cropSize(320, 240, "horizontal_16_9"),
    assPath: null,
    loudness: await measureLoudness(source, cut.from, durationSec, signal),
    hasAudio: true,
    redaction: redaction && spans.length > 0 ? { spans, mode: redaction.mode } : null,
    brandColor: "#000000",
    logo: null,
    fps: 30,
    preset: "ultrafast",
    crf: 35,
    poster: null,
    signal,
  });
  return toPcm16(output);
}

/** The dub's extraction (gpu-runner/services/dubbing/audio.ts) of the script's video: the raw FLAC and the 16 kHz analysis WAV, as 16 kHz mono samples. */
export async function extractedDubTracks(
  speech: RedactedSpeech,
  redaction: { spans: readonly RedactedSpan[]; mode: RedactedAudioMode } | null,
  dir: string,
  name: string,
  signal: AbortSignal,
): Promise<{ raw: Int16Array; analysis: Int16Array }> {
  const source = await openSource(speech.video, { kind: "video", limits: DEFAULT_SETTINGS.runner, signal });
  const raw = path.join(dir, `${name}.flac`);
  const analysis = path.join(dir, `${name}.wav`);
  const spans = redaction ? mergeSpans(spansInCut(redaction.spans)) : [];
  await extractTracks(source, raw, analysis, signal, redaction && spans.length > 0 ? { spans, mode: redaction.mode } : null);
  return { raw: await toPcm16(raw), analysis: await toPcm16(analysis) };
}
