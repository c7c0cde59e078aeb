import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import { extractAudio } from "../gpu-runner/media/ffmpeg";
import { openSource } from "../gpu-runner/media/source";
import { FFMPEG, FFPROBE, INPUT_GUARD, runToolOk } from "../gpu-runner/media/spawn";
import { buildSpeechWav, buildVideo } from "../scripts/make-sample-media";
import { fmt, machineInfo, table } from "./lib";

/**
 * What the bounds on a customer's source cost on the normal path, on a 10-minute 1280×720 25 fps
 * H.264 + AAC source (a test picture, the LibriVox speech looped under it), beside what was run
 * before, in the same run, alternating, median of `--rounds`:
 *
 *  - accepting the source as every handler now does (media/source.ts: ffprobe limited to local
 *    files and the accepted demuxers, the format, picture and stream checks, and the demux-only
 *    pass that measures its duration from its packets), against the old probe alone (ffprobe's
 *    format and streams, the container's declared duration);
 *  - the first decode after it (transcription's audio extraction), bounded as now (`-f`, `-t` at
 *    the measured duration, `atrim` counting samples), against the same decode unbounded.
 *
 * Wall milliseconds and the CPU milliseconds of the tools (the children this process waited for).
 *
 *   npx tsx bench/media-bounds.ts [--rounds 5]
 */
const { values: args } = parseArgs({ options: { rounds: { type: "string", default: "5" } } });
const ROUNDS = Math.max(1, Number(args.rounds));
const SOURCE_SEC = 600;
const ROOT = path.resolve(import.meta.dirname, "..");
const MEDIA = path.join(ROOT, ".local/bench-media-bounds");
const signal = new AbortController().signal;

/** CPU ms of the child processes this process has waited for (/proc/self/stat: cutime + cstime). */
function childrenCpuMs(): number {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(fields[13]) + Number(fields[14]);
  return (ticks * 1000) / 100;
}

async function timed(fn: () => Promise<unknown>): Promise<{ wall: number; cpu: number }> {
  const cpu0 = childrenCpuMs();
  const t0 = performance.now();
  await fn();
  return { wall: performance.now() - t0, cpu: childrenCpuMs() - cpu0 };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** The source, built once into .local/bench-media-bounds: 10 s of picture encoded, then looped with the speech (video copied). */
async function buildSource(): Promise<string> {
  const out = path.join(MEDIA, `source-${SOURCE_SEC}s.mp4`);
  if (existsSync(out)) return out;
  await mkdir(MEDIA, { recursive: true });
  const wav = path.join(MEDIA, "speech.wav");
  if (!existsSync(wav)) await buildSpeechWav(wav);
  const reel = path.join(MEDIA, "reel-10s.mp4");
  await runToolOk(FFMPEG, [
    ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error"],
    ...["-f", "lavfi", ...INPUT_GUARD, "-i", "testsrc2=s=1280x720:r=25:d=10"],
    ...["-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-g", "50", "-pix_fmt", "yuv420p", reel],
  ]);
  await buildVideo(`${out}.tmp.mp4`, wav, reel, { loopAudio: true, durationSec: SOURCE_SEC });
  await rename(`${out}.tmp.mp4`, out);
  return out;
}

/** What the handlers ran before: ffprobe's format and streams, nothing read beyond the header. */
const oldProbe = (file: string) =>
  runToolOk(
    FFPROBE,
    [
      ...["-v", "error", "-show_entries"],
      "format=duration,format_name:stream=index,codec_type,codec_name,duration:stream_disposition=attached_pic",
      ...["-of", "json", ...INPUT_GUARD, "-i", file],
    ],
    { signal, collectStdout: true },
  );

const limits = DEFAULT_SETTINGS.runner;

console.log(machineInfo());
const source = await buildSource();
const accepted = await openSource(source, { kind: "any", limits, signal });
console.log(
  `source: ${path.relative(ROOT, source)}, ${fmt(accepted.durationSec)} s measured, ${accepted.video?.width}×${accepted.video?.height} ` +
    `${fmt(accepted.video?.fps ?? 0)} fps, ${accepted.format}; ${ROUNDS} rounds, medians`,
);

const dir = await mkdtemp(path.join(os.tmpdir(), "bench-media-bounds-"));
const runs = { oldProbe: [] as number[][], accept: [] as number[][], unbounded: [] as number[][], bounded: [] as number[][] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Alternating which goes first, so neither always meets a warm page cache.
    const pairs: Array<[keyof typeof runs, () => Promise<unknown>]> = [
      ["oldProbe", () => oldProbe(source)],
      ["accept", () => openSource(source, { kind: "any", limits, signal })],
      ["unbounded", () => extractAudio(source, path.join(dir, "old.wav"), signal)],
      ["bounded", () => extractAudio(accepted, path.join(dir, "new.wav"), signal)],
    ];
    const order = round % 2 === 0 ? pairs : [pairs[1]!, pairs[0]!, pairs[3]!, pairs[2]!];
    for (const [name, fn] of order) {
      const t = await timed(fn);
      runs[name].push([t.wall, t.cpu]);
    }
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}

const row = (label: string, xs: number[][]) => [label, fmt(median(xs.map((x) => x[0]!)), 0), fmt(median(xs.map((x) => x[1]!)), 0)];
console.log(
  table(
    ["10-minute source", "wall ms", "tool CPU ms"],
    [
      row("old probe alone (declared duration)", runs.oldProbe),
      row("accepted as now: probe + checks + packet duration", runs.accept),
      row("first decode (extract audio), unbounded", runs.unbounded),
      row("first decode, bounded (-f, -t, atrim)", runs.bounded),
    ],
  ),
);
const extra = median(runs.accept.map((x) => x[0]!)) - median(runs.oldProbe.map((x) => x[0]!));
console.log(
  `the duration check adds ${fmt(extra, 0)} ms to the probe: ${fmt((extra / (SOURCE_SEC * 1000)) * 100, 3)} % of the source's length, ` +
    `${fmt((extra / median(runs.unbounded.map((x) => x[0]!))) * 100, 1)} % of its first decode`,
);
