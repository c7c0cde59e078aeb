import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { INPUT_GUARD, runToolOk } from "../gpu-runner/media/spawn";

/**
 * Sample media for the demo, tests and benchmarks, built from public-domain speech: the LibriVox
 * "Sense and Sensibility" recordings Debian ships in `pocketsphinx-testdata`, with their reference
 * transcriptions. Pictures are ffmpeg test cards that change every ~10 s, so video_analysis has
 * real scene cuts to find.
 *
 *   npx tsx scripts/make-sample-media.ts [--out .local/samples] [--repeat 3] [--minutes 20] [--over-limit]
 *
 * Writes sample.mp4 (h264 + aac) and sample.reference.txt; with --minutes N also long-N.mp4 (the
 * same speech looped); with --over-limit also over-limit-3601s.mp4 (audio-only silence, ~230 kB).
 */
export const LIBRIVOX_DIR = "/usr/share/pocketsphinx/test/data/librivox";

export interface Utterance {
  id: string;
  wav: string;
  text: string;
}

/** The recordings and their reference text, from the test data's `transcription` file. */
export async function librivoxUtterances(dir = LIBRIVOX_DIR): Promise<Utterance[]> {
  const lines = (await readFile(path.join(dir, "transcription"), "utf8")).split("\n").filter((l) => l.trim());
  return lines.map((line) => {
    const m = /^(.*)\(([^)]+)\)\s*$/.exec(line.trim());
    if (!m?.[1] || !m[2]) throw new Error(`unexpected transcription line: ${line}`);
    const text = m[1]
      .replace(/<\/?s>/g, "")
      .replace(/\s+/g, " ")
      .trim();
    return { id: m[2], wav: path.join(dir, `${m[2]}.wav`), text };
  });
}

const ROOT_DIR = path.resolve(import.meta.dirname, "..");
const FF = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

/**
 * Concatenates the recordings `repeat` times with `gapSec` of silence between them into one
 * 16 kHz mono WAV; returns the reference text in the same order.
 */
export async function buildSpeechWav(out: string, opts: { repeat?: number; gapSec?: number } = {}): Promise<string> {
  const utterances = await librivoxUtterances();
  const order = Array.from({ length: opts.repeat ?? 1 }, () => utterances).flat();
  const gap = opts.gapSec ?? 0.8;
  const inputs = order.flatMap((u) => [...INPUT_GUARD, "-i", u.wav]);
  const parts = order.map((_, i) => `[${i}:a]aresample=16000,apad=pad_dur=${gap}[a${i}]`);
  const graph = `${parts.join(";")};${order.map((_, i) => `[a${i}]`).join("")}concat=n=${order.length}:v=0:a=1[out]`;
  await runToolOk("ffmpeg", [
    ...FF,
    ...inputs,
    "-filter_complex",
    graph,
    "-map",
    "[out]",
    "-ac",
    "1",
    "-ar",
    "16000",
    "-c:a",
    "pcm_s16le",
    out,
  ]);
  return order.map((u) => u.text).join("\n") + "\n";
}

/**
 * Test cards that differ strongly from each other, so every cut scores well above 0.3. Mostly
 * static pictures: a long looped source stays small (tens of MB for an hour).
 */
const CARDS = [
  "testsrc2=s=320x180:r=10",
  "smptebars=s=320x180:r=10",
  "color=c=0x1f3b8c:s=320x180:r=10",
  "color=c=0xd2691e:s=320x180:r=10",
  "rgbtestsrc=s=320x180:r=10",
  "color=c=0x2e8b57:s=320x180:r=10",
];

/** A silent card reel: `cards` cards of `sceneSec` seconds each, h264 at 320x180, 10 fps. */
export async function buildCardReel(out: string, opts: { cards?: number; sceneSec?: number } = {}): Promise<void> {
  const n = opts.cards ?? CARDS.length;
  const scene = opts.sceneSec ?? 10;
  const inputs = Array.from({ length: n }, (_, i) => [
    "-f",
    "lavfi",
    "-t",
    String(scene),
    ...INPUT_GUARD,
    "-i",
    CARDS[i % CARDS.length]!,
  ]).flat();
  const graph = `${Array.from({ length: n }, (_, i) => `[${i}:v]format=yuv420p,setsar=1[v${i}]`).join(";")};${Array.from({ length: n }, (_, i) => `[v${i}]`).join("")}concat=n=${n}:v=1:a=0[out]`;
  await runToolOk("ffmpeg", [
    ...FF,
    ...inputs,
    "-filter_complex",
    graph,
    "-map",
    "[out]",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "30",
    "-g",
    "50",
    "-pix_fmt",
    "yuv420p",
    out,
  ]);
}

/**
 * Muxes speech under the card reel (looped as needed) into an mp4 (h264 + aac), trimmed to the
 * audio. The video stream is copied, so a long source costs an AAC encode, not a video encode.
 */
/** Group photographs shipped with @vladmandic/face-api (a dev dependency): raw material for videos with faces. */
export const FACE_PHOTO = (n: 1 | 2 | 3 | 4 | 5 | 6) => path.join(ROOT_DIR, "node_modules/@vladmandic/face-api/demo", `sample${n}.jpg`);

/**
 * A silent 1280×720, 25 fps reel with real faces, cut from the face photographs:
 *  - `moving`: one face (a tile from photo 1) slides from left to right across a dark backdrop
 *    over the first 80 % of the reel, then holds (what a speaker-following crop must follow);
 *  - `interview`: close-ups of two different people that alternate every `sceneSec` seconds with
 *    hard cuts (A, B, A, …), each drifting slowly as a handheld camera would.
 */
export async function buildFaceReel(
  out: string,
  opts: { kind: "moving" | "interview"; durationSec: number; sceneSec?: number },
): Promise<void> {
  const d = opts.durationSec;
  if (opts.kind === "moving") {
    const travel = (d * 0.8).toFixed(3);
    await runToolOk("ffmpeg", [
      ...FF,
      "-f",
      "lavfi",
      ...INPUT_GUARD,
      "-i",
      `color=c=0x202830:s=1280x720:r=25:d=${d}`,
      "-loop",
      "1",
      "-framerate",
      "25",
      "-t",
      String(d),
      ...INPUT_GUARD,
      "-i",
      FACE_PHOTO(1),
      "-filter_complex",
      `[1:v]crop=400:440:1340:120,scale=300:330,setsar=1[face];[0:v][face]overlay=x='40+900*min(t/${travel},1)':y=190:shortest=1,format=yuv420p[v]`,
      "-map",
      "[v]",
      "-c:v",
      "libx264",
      "-preset",
      "veryfast",
      "-crf",
      "23",
      "-t",
      String(d),
      out,
    ]);
    return;
  }
  const scene = opts.sceneSec ?? 8;
  const n = Math.ceil(d / scene);
  // Close-ups: (photo, crop x, crop y) of a 640×360 window around one face, drifting 6 px/s.
  const shots = [
    { photo: FACE_PHOTO(1), x: 1260, y: 160 },
    { photo: FACE_PHOTO(6), x: 40, y: 380 },
  ];
  const inputs = Array.from({ length: n }, (_, i) => {
    const shot = shots[i % shots.length]!;
    const len = Math.min(scene, d - i * scene);
    return ["-loop", "1", "-framerate", "25", "-t", len.toFixed(3), ...INPUT_GUARD, "-i", shot.photo];
  }).flat();
  const parts = Array.from({ length: n }, (_, i) => {
    const shot = shots[i % shots.length]!;
    return `[${i}:v]crop=640:360:x='${shot.x}+6*t':y=${shot.y},scale=1280:720,setsar=1,format=yuv420p[v${i}]`;
  });
  const graph = `${parts.join(";")};${Array.from({ length: n }, (_, i) => `[v${i}]`).join("")}concat=n=${n}:v=1:a=0[v]`;
  await runToolOk("ffmpeg", [
    ...FF,
    ...inputs,
    "-filter_complex",
    graph,
    "-map",
    "[v]",
    "-c:v",
    "libx264",
    "-preset",
    "veryfast",
    "-crf",
    "23",
    "-r",
    "25",
    out,
  ]);
}

export async function buildVideo(
  out: string,
  wav: string,
  reel: string,
  opts: { loopAudio?: boolean; durationSec?: number } = {},
): Promise<void> {
  const audioIn = opts.loopAudio ? ["-stream_loop", "-1", ...INPUT_GUARD, "-i", wav] : [...INPUT_GUARD, "-i", wav];
  const duration = opts.durationSec !== undefined ? ["-t", String(opts.durationSec)] : ["-shortest"];
  await runToolOk("ffmpeg", [
    ...FF,
    "-stream_loop",
    "-1",
    ...INPUT_GUARD,
    "-i",
    reel,
    ...audioIn,
    "-map",
    "0:v",
    "-map",
    "1:a",
    "-c:v",
    "copy",
    "-c:a",
    "aac",
    "-b:a",
    "64k",
    ...duration,
    "-movflags",
    "+faststart",
    out,
  ]);
}

/** Audio-only silence just over the one-hour limit: cheap (~230 kB, ~1 s to build). */
export async function buildOverLimit(out: string, seconds = 3601): Promise<void> {
  await runToolOk("ffmpeg", [
    ...FF,
    "-f",
    "lavfi",
    ...INPUT_GUARD,
    "-i",
    "anullsrc=r=8000:cl=mono",
    "-t",
    String(seconds),
    "-c:a",
    "aac",
    "-b:a",
    "8k",
    out,
  ]);
}

/** Audio-only speech (no video stream) in an mp4 container. */
export async function buildAudioOnly(out: string, wav: string): Promise<void> {
  await runToolOk("ffmpeg", [...FF, ...INPUT_GUARD, "-i", wav, "-c:a", "aac", "-b:a", "64k", out]);
}

export interface SampleSet {
  video: string;
  reference: string;
  speechWav: string;
  long?: string;
  overLimit?: string;
}

export async function makeSamples(
  outDir: string,
  opts: { repeat?: number; minutes?: number; overLimit?: boolean; faces?: boolean } = {},
): Promise<SampleSet> {
  await mkdir(outDir, { recursive: true });
  const speechWav = path.join(outDir, "sample.speech.wav");
  const reel = path.join(outDir, "cards.mp4");
  const video = path.join(outDir, "sample.mp4");
  const reference = path.join(outDir, "sample.reference.txt");
  const text = await buildSpeechWav(speechWav, { repeat: opts.repeat ?? 1 });
  await writeFile(reference, text);
  // With `faces`, the sample video is the two-person "interview" reel (clips need faces to follow).
  if (opts.faces) await buildFaceReel(reel, { kind: "interview", durationSec: 29, sceneSec: 8 });
  else await buildCardReel(reel);
  await buildVideo(video, speechWav, reel);
  const set: SampleSet = { video, reference, speechWav };
  if (opts.minutes) {
    set.long = path.join(outDir, `long-${opts.minutes}.mp4`);
    if (!existsSync(set.long)) await buildVideo(set.long, speechWav, reel, { loopAudio: true, durationSec: opts.minutes * 60 });
  }
  if (opts.overLimit) {
    set.overLimit = path.join(outDir, "over-limit-3601s.mp4");
    await buildOverLimit(set.overLimit);
  }
  await rm(reel, { force: true });
  return set;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: "string", default: ".local/samples" },
      repeat: { type: "string", default: "1" },
      minutes: { type: "string" },
      "over-limit": { type: "boolean", default: false },
    },
  });
  const set = await makeSamples(path.resolve(values.out), {
    repeat: Number(values.repeat),
    ...(values.minutes ? { minutes: Number(values.minutes) } : {}),
    overLimit: values["over-limit"],
  });
  for (const [k, v] of Object.entries(set)) console.log(`${k.padEnd(10)} ${v}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
