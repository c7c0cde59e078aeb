import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { RedactedAudioMode } from "../contracts/redaction";
import { MAX_SPANS, redactionFilter, spansInCut } from "../gpu-runner/media/redacted-audio";
import {
  extractedDubTracks,
  measureRedaction,
  redactedSpeech,
  renderedClipAudio,
  SILENCE_DBFS,
  TOLERANCE_SEC,
  worstEdgeMs,
  type Cut,
  type RedactionFigures,
} from "../test/support/redacted-speech";
import { fmt, machineInfo, table } from "./lib";

/**
 * Redacted words in the audio of clips and dubs (issue 25: "every redacted word's audio silenced
 * within 50 ms of its timing"). eSpeak NG speaks a script word by word with known timings, seven
 * planted entities (names, an email, a phone number, a date of birth, a card number) are the
 * redacted spans, and the real clip render and the real dub extraction run with them silenced and,
 * as the baseline in the same run, with nothing silenced. Per span, in 10 ms frames: how many frames
 * inside the span (shrunk by 50 ms at each edge) are below −60 dBFS, and how far the silenced run
 * (1 ms resolution) reaches past or falls short of the span's edges; outside the spans (grown by
 * 50 ms), the largest level difference from the unredacted render.
 *
 *   npx tsx bench/redaction-audio.ts
 */

const signal = AbortSignal.timeout(600_000);
const speech = await redactedSpeech();
const dir = await mkdtemp(path.join(os.tmpdir(), "bench-redaction-audio-"));
const ms = (x: number) => `${Math.round(x * 1000)}`;

console.log(machineInfo());
console.log(
  `script: ${speech.words.length} words, ${fmt(speech.durationSec, 1)} s, ${speech.spans.length} redacted spans; tolerance ${ms(TOLERANCE_SEC)} ms, silence < ${SILENCE_DBFS} dBFS\n`,
);

/** A frame level; digital zero (what silencing writes) as such rather than its floor of −200 dB. */
const level = (frames: number, db: number) => (frames === 0 ? "–" : db < -150 ? "zero" : fmt(db, 1));

function spanRows(label: string, f: RedactionFigures, base: RedactionFigures, types: readonly string[]): string[][] {
  return f.spans.map((s, i) => {
    const b = base.spans[i]!;
    const worst = worstEdgeMs(s);
    return [
      `${label} ${types[i]}`,
      `${ms(s.span.start)}–${ms(s.span.end)}`,
      `${s.silentInside}/${s.framesInside}`,
      level(s.framesInside, s.loudestInsideDb),
      s.startErrorMs === null ? "–" : String(s.startErrorMs),
      s.endErrorMs === null ? "–" : String(s.endErrorMs),
      worst === null ? "not silenced" : String(worst),
      `${b.silentInside}/${b.framesInside}`,
      level(b.framesInside, b.loudestInsideDb),
    ];
  });
}

const header = [
  "span",
  "ms in its audio",
  "silent frames",
  "loudest dBFS",
  "start err ms",
  "end err ms",
  "worst edge ms",
  "baseline silent",
  "baseline loudest",
];

async function clipCase(mode: RedactedAudioMode, cut: Cut) {
  const t0 = performance.now();
  const base = await renderedClipAudio(speech, cut, null, path.join(dir, `clip-base-${mode}.mp4`), signal);
  const baseMs = performance.now() - t0;
  const t1 = performance.now();
  const out = await renderedClipAudio(speech, cut, { spans: speech.spans, mode }, path.join(dir, `clip-${mode}.mp4`), signal);
  const redactedMs = performance.now() - t1;
  const inCut = speech.spans.filter((s) => s.end > cut.from && s.start < cut.to);
  const spans = spansInCut(inCut, cut);
  return {
    f: measureRedaction(out, base, spans),
    b: measureRedaction(base, base, spans),
    types: inCut.map((s) => s.type),
    baseMs,
    redactedMs,
  };
}

// The cut starts inside the first name and ends inside the last: spans are shifted and clipped to it.
const cut: Cut = { from: speech.spans[0]!.start + 0.3, to: speech.spans.at(-1)!.end - 0.15 };
const clip = await clipCase("silence", cut);
console.log(`## Clip render (cut ${fmt(cut.from, 2)}–${fmt(cut.to, 2)} s of the source; spans in the clip's timeline), silence`);
console.log(table(header, spanRows("clip", clip.f, clip.b, clip.types)));
console.log(
  `outside the spans (±${ms(TOLERANCE_SEC)} ms): ${clip.f.framesOutside} frames, largest difference from the unredacted render ${fmt(clip.f.largestOutsideDiffDb, 2)} dB`,
);
console.log(
  `render wall time: unredacted ${fmt(clip.baseMs, 0)} ms, redacted ${fmt(clip.redactedMs, 0)} ms (same clip, each with its loudness pass)\n`,
);

const t0 = performance.now();
const dubBase = await extractedDubTracks(speech, null, dir, "dub-base", signal);
const dubBaseMs = performance.now() - t0;
const t1 = performance.now();
const dub = await extractedDubTracks(speech, { spans: speech.spans, mode: "silence" }, dir, "dub", signal);
const dubMs = performance.now() - t1;
const types = speech.spans.map((s) => s.type);
for (const track of ["raw", "analysis"] as const) {
  const f = measureRedaction(dub[track], dubBase[track], speech.spans);
  const b = measureRedaction(dubBase[track], dubBase[track], speech.spans);
  console.log(
    `## Dub source audio: ${track === "raw" ? "raw_audio.flac (48 kHz)" : "analysis.wav (16 kHz, diarization and voices)"}, silence`,
  );
  console.log(table(header, spanRows(`dub ${track}`, f, b, types)));
  console.log(
    `outside the spans (±${ms(TOLERANCE_SEC)} ms): ${f.framesOutside} frames, largest difference from the unredacted extraction ${fmt(f.largestOutsideDiffDb, 2)} dB\n`,
  );
}
console.log(`extraction wall time: unredacted ${fmt(dubBaseMs, 0)} ms, redacted ${fmt(dubMs, 0)} ms\n`);

const tone = await clipCase("tone", cut);
const toneLevels = tone.f.spans.filter((s) => s.framesInside > 0).map((s) => fmt(s.loudestInsideDb, 1));
console.log(`## Clip render, tone: loudest 10 ms frame inside each span ${toneLevels.join(", ")} dBFS (a 1 kHz tone, not silence)`);
console.log(
  `outside the spans: largest difference from the unredacted render ${fmt(tone.f.largestOutsideDiffDb, 2)} dB over ${tone.f.framesOutside} frames\n`,
);

// Many spans: the filter stays bounded and its expression is evaluated in log2(n) tests per frame.
const many = Array.from({ length: 2000 }, (_, i) => ({ start: i * 1.8 + 0.2, end: i * 1.8 + 0.7 }));
for (const n of [10, 100, MAX_SPANS, 2000]) {
  const silence = redactionFilter(many.slice(0, n), { sampleRate: 48_000 }) ?? "";
  const toneF = redactionFilter(many.slice(0, n), { sampleRate: 48_000, mode: "tone" }) ?? "";
  console.log(`${String(n).padStart(4)} spans: silence filter ${silence.length} chars, tone filter ${toneF.length} chars`);
}
await rm(dir, { recursive: true, force: true });
