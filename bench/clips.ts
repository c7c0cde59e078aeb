import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ClipGenerationResultSchema, LAYOUT_SIZE, type ClipTranscript } from "../contracts/clips";
import { S3Client } from "../contracts/s3-client";
import { renderClipsStep } from "../contracts/services/clip-generation";
import { stepSpec } from "../contracts/services/types";
import { DEFAULT_SETTINGS } from "../contracts/settings";
import { createSpeechEngine } from "../gpu-runner/engines/speech/factory";
import { createVisionEngine } from "../gpu-runner/engines/vision/factory";
import type { FrameObservation } from "../gpu-runner/engines/vision/interface";
import { INPUT_GUARD, runToolOk } from "../gpu-runner/media/spawn";
import { mapLimit } from "../gpu-runner/services/shared/map-limit";
import { buildAss, captionStyleFor } from "../gpu-runner/services/clip-generation/captions";
import { createClipGenerationHandler } from "../gpu-runner/services/clip-generation/handler";
import {
  detectSceneCuts,
  makeProxy,
  sampleMoment,
  videoInfo,
  type MomentSample,
  type VideoInfo,
} from "../gpu-runner/services/clip-generation/media";
import { openSource } from "../gpu-runner/media/source";
import { cropXAt, planCrop, targetsOf, type CropPiece, type Target } from "../gpu-runner/services/clip-generation/reframe";
import { cropSize, renderClip } from "../gpu-runner/services/clip-generation/render";
import { startLocalS3 } from "../scripts/lib/local-s3";
import { buildFaceReel, buildSpeechWav, buildVideo } from "../scripts/make-sample-media";
import { clipContext } from "../test/support/clip-context";
import { makeHandlerContext, storageGrant, type RecordedEvent } from "../test/support/handler-context";
import { fmt, machineInfo, table } from "./lib";

/**
 * Clip generation's costs on generated face reels (LibriVox speech looped under real faces), each
 * beside a baseline measured in the same run:
 *  - rendering N clips with `renderClip` (speaker-following 9:16 crop, captions, loudnorm second
 *    pass, the poster taken in the same process), `clips.rendersAtOnce` at a time as the handler
 *    renders them and, beside it, one at a time, against one plain ffmpeg libx264 encode of the same
 *    total duration at the same preset, CRF, frame rate and size (a fixed centre crop, AAC at the
 *    same rate, no loudnorm or captions); each clip's moment decode (`sampleMoment`: exact cuts and
 *    the loudness measure) is counted beside it, as the handler's render stage does it; rounds
 *    alternate which goes first; wall time and ffmpeg CPU time (steadier on a shared machine);
 *  - the vision engine's seconds of analysis per second of source on frames sampled at the
 *    settings' visionFps, beside what sampling those frames with ffmpeg costs;
 *  - reframing with `targetsOf`/`planCrop` on those real observations: crop movement on a still
 *    speaker (beside a crop that follows the raw detections), and the time until the new speaker
 *    is inside the crop at each speaker change of an interview reel (with the scene cuts `scdet`
 *    finds, and without them, when the crop must pan). The sample interview reel's close-ups put
 *    both people near the centre (x ≈ 0.45), where any crop already holds the next speaker, so
 *    the bench re-frames it as wide shots: speaker A on the left (x ≈ 0.26), B on the right (≈ 0.7);
 *  - peak RSS of this process (the vision engine runs in it) and of the largest ffmpeg child;
 *  - with `--whole-job-min M` (off by default): the whole job, twice. The real clip generation
 *    handler (`createClipGenerationHandler`) runs end to end on an M-minute moving-face reel built
 *    like the others, against a local S3, with a transcript of the PocketSphinx words looped over it
 *    (vertical_9_16), in a child process so its wall time, CPU and peak RSS (the process and its
 *    ffmpeg children, sampled from /proc) are its own: "tight" asks for `--clips` clips of
 *    `--clip-sec` to `--clip-sec` + 1 s, "default" for what a request without options gets (the
 *    free plan's default maxClips, the default 15–60 s clips). Beside each, a plain libx264 encode of
 *    the source ranges of the clips it made, joined, before and after the job; the goal is the whole job
 *    within twice the render ceiling, 2 × 1.3× that encode. Stage times come from its events.
 * Speech is read by PocketSphinx once (the 29 s reading; the reels loop it) for captions and for
 * the "someone is speaking" test the reframer uses.
 *
 *   npx tsx bench/clips.ts [--clips 3] [--clip-sec 15] [--rounds 3] [--whole-job-min 10]
 */
const { values: args } = parseArgs({
  options: {
    clips: { type: "string", default: "3" },
    "clip-sec": { type: "string", default: "15" },
    rounds: { type: "string", default: "3" },
    "whole-job-min": { type: "string" },
    /** Internal: this script runs itself with this flag to run the handler in a process of its own. */
    "whole-job-child": { type: "string" },
  },
});
const CLIPS = Math.max(1, Number(args.clips) || 3);
const CLIP_SEC = Math.max(5, Number(args["clip-sec"]) || 15);
const ROUNDS = Math.max(1, Number(args.rounds) || 3);
const WHOLE_JOB_MIN = args["whole-job-min"] === undefined ? 0 : Number(args["whole-job-min"]);
if (!(WHOLE_JOB_MIN >= 0)) throw new Error(`--whole-job-min wants minutes, got ${args["whole-job-min"]}`);
const WHOLE_JOB_SEC = Math.round(WHOLE_JOB_MIN * 60);

const CS = DEFAULT_SETTINGS.clips;
/** A reel opened as the handler opens a customer's source (media/source.ts). */
const openReel = (file: string) => openSource(file, { kind: "video", limits: DEFAULT_SETTINGS.runner, signal });
/** The handler's analysis width, scene threshold and crop confirmation (handler.ts). */
const ANALYSIS_WIDTH = 640;
const SCENE_THRESHOLD = 10;
const CONFIRM_SEC = 0.3;
const LAYOUT = "vertical_9_16" as const;
const GAP_SEC = 5;
const MOVING_SEC = Math.max(66, 4 + CLIPS * (CLIP_SEC + GAP_SEC));
const INTERVIEW_SEC = 64;
const SCENE_SEC = 8;

const ROOT = path.resolve(import.meta.dirname, "..");
const MEDIA = path.join(ROOT, ".local/bench-clips");
const signal = new AbortController().signal;
const mib = (kib: number) => kib / 1024;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

/**
 * CPU time and peak RSS of every ffmpeg this process starts: a shim first on PATH runs the real
 * ffmpeg under /usr/bin/time, which appends "wall user sys maxrss_kB" to a log. CPU seconds are
 * what the render comparison also reports, since wall time on a shared machine moves with its load.
 */
const FFMPEG_LOG_RE = /^([\d.]+) ([\d.]+) ([\d.]+) (\d+)$/;
let ffmpegLog = "";
async function installFfmpegShim(dir: string): Promise<void> {
  const real = (await runToolOk("sh", ["-c", "command -v ffmpeg"], { collectStdout: true })).stdout.trim();
  const bin = path.join(dir, "bin");
  ffmpegLog = path.join(dir, "ffmpeg-usage.log");
  await mkdir(bin);
  await writeFile(ffmpegLog, "");
  await writeFile(path.join(bin, "ffmpeg"), `#!/bin/sh\nexec /usr/bin/time -a -o '${ffmpegLog}' -f '%e %U %S %M' '${real}' "$@"\n`, {
    mode: 0o755,
  });
  process.env["PATH"] = `${bin}:${process.env["PATH"] ?? ""}`;
}
const ffmpegRuns = () =>
  readFileSync(ffmpegLog, "utf8")
    .split("\n")
    .map((l) => FFMPEG_LOG_RE.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ cpu: Number(m[2]) + Number(m[3]), rssKiB: Number(m[4]) }));

/** Wall seconds and ffmpeg CPU seconds. */
interface Cost {
  wall: number;
  cpu: number;
}

/** Wall seconds of `fn`, and the CPU seconds of the ffmpeg runs it started (they run one at a time). */
async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; sec: number; ffmpegCpu: number }> {
  const before = ffmpegLog ? ffmpegRuns().length : 0;
  const t0 = performance.now();
  const value = await fn();
  const sec = (performance.now() - t0) / 1000;
  return {
    value,
    sec,
    ffmpegCpu: ffmpegLog
      ? ffmpegRuns()
          .slice(before)
          .reduce((n, r) => n + r.cpu, 0)
      : 0,
  };
}

async function durationOf(file: string): Promise<number> {
  const res = await runToolOk(
    "ffprobe",
    ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", ...INPUT_GUARD, "-i", file],
    {
      collectStdout: true,
    },
  );
  return Number(res.stdout.trim());
}

async function integratedLufs(file: string): Promise<number> {
  let i = Number.NaN;
  await runToolOk(
    "ffmpeg",
    ["-hide_banner", "-nostdin", "-nostats", ...INPUT_GUARD, "-i", file, "-map", "0:a:0", "-af", "ebur128", "-f", "null", "-"],
    {
      onStderrLine: (line) => {
        const m = /^\s*I:\s+(-?[\d.]+) LUFS/.exec(line);
        if (m?.[1]) i = Number(m[1]);
      },
    },
  );
  return i;
}

/** A face reel with the speech looped under it, built once into .local/bench-clips. */
async function buildReel(wav: string, kind: "moving" | "interview", sec: number): Promise<string> {
  const out = path.join(MEDIA, `${kind}-${sec}s.mp4`);
  if (existsSync(out)) return out;
  const tmp = path.join(MEDIA, `.${kind}.reel.mp4`);
  await buildFaceReel(tmp, { kind, durationSec: sec, sceneSec: SCENE_SEC });
  await buildVideo(`${out}.tmp.mp4`, wav, tmp, { loopAudio: true, durationSec: sec });
  await rm(tmp, { force: true });
  await rename(`${out}.tmp.mp4`, out);
  return out;
}

/** The reels, built once into .local/bench-clips (about a minute the first time). */
async function buildMedia(): Promise<{ wav: string; moving: string; wide: string }> {
  await mkdir(MEDIA, { recursive: true });
  const wav = path.join(MEDIA, "speech.wav");
  if (!existsSync(wav)) await buildSpeechWav(wav);
  const reel = (kind: "moving" | "interview", sec: number) => buildReel(wav, kind, sec);
  const interview = await reel("interview", INTERVIEW_SEC);
  // Each close-up shrunk onto a wide backdrop, on the left for A's shots and on the right for B's.
  const wide = path.join(MEDIA, `interview-wide-${INTERVIEW_SEC}s.mp4`);
  if (!existsSync(wide)) {
    await runToolOk("ffmpeg", [
      ...[
        "-hide_banner",
        "-nostdin",
        "-y",
        "-loglevel",
        "error",
        ...INPUT_GUARD,
        "-i",
        interview,
        "-f",
        "lavfi",
        ...INPUT_GUARD,
        "-i",
        "color=c=0x202830:s=1280x720:r=25",
      ],
      "-filter_complex",
      `[0:v]scale=720:405,setsar=1[s];[1:v][s]overlay=x='if(lt(mod(t,${2 * SCENE_SEC}),${SCENE_SEC}),0,560)':y=157:shortest=1,format=yuv420p[v]`,
      ...["-map", "[v]", "-map", "0:a", "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-c:a", "copy"],
      ...["-movflags", "+faststart", `${wide}.tmp.mp4`],
    ]);
    await rename(`${wide}.tmp.mp4`, wide);
  }
  return { wav, moving: await reel("moving", MOVING_SEC), wide };
}

/** Mean |Δx| of a crop's left edge per output frame over [t0, t1] (clip time). */
function meanMotion(xAt: (t: number) => number, t0: number, t1: number, fps: number): number {
  const deltas: number[] = [];
  for (let t = t0 + 1 / fps; t <= t1; t += 1 / fps) deltas.push(Math.abs(xAt(t) - xAt(t - 1 / fps)));
  return mean(deltas);
}

/** A crop that follows the raw detections: each sample's target, linearly between samples. */
function rawFollow(targets: readonly Target[], srcW: number, cropW: number): (t: number) => number {
  const toX = (cx: number) => Math.min(srcW - cropW, Math.max(0, cx * srcW - cropW / 2));
  return (t) => {
    const i = targets.findIndex((g) => g.t > t);
    if (i <= 0) return toX((i === 0 ? targets[0]! : targets[targets.length - 1]!).cx);
    const a = targets[i - 1]!;
    const b = targets[i]!;
    return toX(a.cx + ((b.cx - a.cx) * (t - a.t)) / (b.t - a.t));
  };
}

const largestFaceCx = (o: FrameObservation): number | null => {
  const faces = o.faces.filter((f) => f.score >= 0.5);
  if (faces.length === 0) return null;
  const f = faces.reduce((a, b) => (b.box.width * b.box.height > a.box.width * a.box.height ? b : a));
  return f.box.x + f.box.width / 2;
};

/**
 * Seconds from a speaker change at `c` until the new speaker's face centre (the median of the
 * detections 0.4–2 s after the change) is inside the crop and stays there for the next 2 s.
 */
function timeToInside(pieces: readonly CropPiece[], obs: readonly FrameObservation[], c: number, srcW: number, cropW: number): number {
  const cxs = obs
    .filter((o) => o.t >= c + 0.4 && o.t <= c + 2)
    .map(largestFaceCx)
    .filter((x): x is number => x !== null);
  if (cxs.length === 0) return Number.NaN;
  const px = median(cxs) * srcW;
  const inside = (t: number) => {
    const x = cropXAt(pieces, t);
    return px >= x && px <= x + cropW;
  };
  const step = 1 / CS.fps;
  for (let t = c; t <= c + 3; t += step) {
    let holds = true;
    for (let u = t; u <= t + 2; u += step) if (!inside(u)) holds = false;
    if (holds) return t - c;
  }
  return Number.POSITIVE_INFINITY;
}

/** The PocketSphinx words of one reading, repeated every `loopSec` over `sec` seconds: one list per repeat. */
function loopWords(heard: ReadonlyArray<{ word: string; start: number; end: number }>, loopSec: number, sec: number) {
  return Array.from({ length: Math.ceil(sec / loopSec) }, (_, k) =>
    heard.map((w) => ({ word: w.word, start: w.start + k * loopSec, end: w.end + k * loopSec })),
  );
}

/**
 * One plain ffmpeg libx264 encode of `sec` seconds of `source` from `start`: a fixed centre crop to
 * the layout, the clips' preset, CRF, frame rate and size, AAC at the same rate, no loudnorm or captions.
 */
function plainEncode(source: string, srcW: number, srcH: number, start: number, sec: number, output: string) {
  return plainEncodeRanges(source, srcW, srcH, [{ start, sec }], output);
}

/**
 * The same, of several ranges of the source joined in one encode (each range read with its own
 * seek, as each clip's render reads its moment): a plain encode of exactly the pictures the clips
 * show, so that how costly they are to encode (motion, detail) is the same on both sides.
 */
function plainEncodeRanges(
  source: string,
  srcW: number,
  srcH: number,
  ranges: ReadonlyArray<{ start: number; sec: number }>,
  output: string,
) {
  const { cropW, cropH } = cropSize(srcW, srcH, LAYOUT);
  const { width: W, height: H } = LAYOUT_SIZE[LAYOUT];
  const x = Math.round((srcW - cropW) / 2);
  const y = Math.round((srcH - cropH) / 2);
  const inputs = ranges.flatMap((r) => ["-ss", r.start.toFixed(3), "-t", r.sec.toFixed(3), ...INPUT_GUARD, "-i", source]);
  const joined = ranges.map((_, i) => `[${i}:v:0][${i}:a:0]`).join("") + `concat=n=${ranges.length}:v=1:a=1[j][a]`;
  const picture = `fps=${CS.fps},crop=${cropW}:${cropH}:${x}:${y},scale=${W}:${H}:flags=lanczos,setsar=1,format=yuv420p`;
  return timed(() =>
    runToolOk("ffmpeg", [
      ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...inputs],
      ...["-filter_complex", `${joined};[j]${picture}[v]`, "-map", "[v]", "-map", "[a]"],
      ...["-c:v", "libx264", "-profile:v", "high", "-pix_fmt", "yuv420p", "-preset", CS.x264Preset, "-crf", String(CS.crf)],
      ...["-r", String(CS.fps), "-vsync", "cfr", "-c:a", "aac", "-b:a", "160k", "-ar", "48000", "-ac", "2"],
      ...["-movflags", "+faststart", output],
    ]),
  );
}

// ---------------------------------------------------------------------------------------------
// The whole job (--whole-job-min): the clip generation handler end to end, in a child process.

const WHOLE_JOB_BUCKET = "bench-clips";

/**
 * The two whole jobs: "tight" asks for the render figure's clips (`--clips` clips of `--clip-sec`
 * to `--clip-sec` + 1 s: moments end on sentence boundaries, so a clip length cannot be exact);
 * "default" is what a request without options gets: the free plan's default maxClips and the
 * default clip settings (15–60 s).
 */
interface WholeJobVariant {
  name: "tight" | "default";
  maxClips: number;
  clipSettings: { minClipSec?: number; maxClipSec?: number };
}
const WHOLE_JOB_VARIANTS: WholeJobVariant[] = [
  { name: "tight", maxClips: CLIPS, clipSettings: { minClipSec: CLIP_SEC, maxClipSec: CLIP_SEC + 1 } },
  { name: "default", maxClips: DEFAULT_SETTINGS.policy.clip_generation.free.maxClipsDefault, clipSettings: {} },
];

interface WholeJobChildArgs {
  endpoint: string;
  sourceKey: string;
  transcriptKey: string;
  variant: WholeJobVariant;
}

interface WholeJobReport {
  wallSec: number;
  /** CPU seconds of the handler's process (vision runs in it; ffmpeg children not included). */
  cpuSec: number;
  maxRssMiB: number;
  stageSec: Record<string, number>;
  events: RecordedEvent[];
  clips: Array<{ start: number; end: number; durationSec: number; videoKey: string }>;
  candidateCount: number;
  layout: string;
  category: string | null;
  sourceDurationSec: number;
}

/** Child side: one handler run with the variant's maxClips and clip settings (the rest default); the report on stdout. */
async function wholeJobChild(job: WholeJobChildArgs): Promise<void> {
  const s3 = { endpoint: job.endpoint, region: "us-east-1", accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  const ctx = await makeHandlerContext({
    input: {
      clipGenerationId: "clp_bench",
      textSourceId: "txt_bench",
      sourceType: "s3_direct",
      connectionId: "stc_test",
      bucket: WHOLE_JOB_BUCKET,
      sourceKey: job.sourceKey,
      resolvedOutputPrefix: "out/clips/",
      options: {
        maxClips: job.variant.maxClips,
        layout: LAYOUT,
        allowAutoLayout: true,
        fillStyle: null,
        captions: true,
        supportedCategories: [...DEFAULT_SETTINGS.policy.clip_generation.free.supportedCategories],
      },
      analysis: { vision: true, category: true },
    },
    step: stepSpec("clip_generation", renderClipsStep),
    outputs: { fetch_transcription: { transcriptKey: job.transcriptKey } },
    storage: storageGrant(s3, WHOLE_JOB_BUCKET),
    settings: { clips: job.variant.clipSettings },
    cores: os.availableParallelism(),
  });
  try {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const result = ClipGenerationResultSchema.parse(await createClipGenerationHandler()(clipContext(ctx)));
    const wallSec = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const report: WholeJobReport = {
      wallSec,
      cpuSec: (cpu.user + cpu.system) / 1e6,
      maxRssMiB: mib(process.resourceUsage().maxRSS),
      stageSec: Object.fromEntries(Object.entries(ctx.report.durations()).map(([k, ms]) => [k, ms / 1000])),
      events: ctx.report.events,
      clips: result.clips.map((c) => ({ start: c.start, end: c.end, durationSec: c.durationSec, videoKey: c.videoKey })),
      candidateCount: result.candidateCount,
      layout: result.layout,
      category: result.category,
      sourceDurationSec: result.sourceDurationSec,
    };
    process.stdout.write(JSON.stringify(report) + "\n");
  } finally {
    await ctx.dispose();
  }
}

/** Resident set of a process and all its descendants (the handler's ffmpeg children), KiB. */
async function treeRssKiB(root: number): Promise<number> {
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = await readFile(`/proc/${entry}/status`, "utf8");
      parents.set(Number(entry), Number(/PPid:\s+(\d+)/.exec(status)?.[1] ?? 0));
      rss.set(Number(entry), Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0));
    } catch {
      // The process ended between readdir and read.
    }
  }
  let total = 0;
  for (const [pid, kib] of rss) {
    for (let p: number | undefined = pid; p; p = parents.get(p)) {
      if (p === root) {
        total += kib;
        break;
      }
    }
  }
  return total;
}

/** Parent side: runs the child, sampling its process tree's RSS every 100 ms. */
async function runWholeJobChild(job: WholeJobChildArgs): Promise<{ report: WholeJobReport; peakTreeMiB: number }> {
  const self = fileURLToPath(import.meta.url);
  const proc = spawn(process.execPath, ["--import", "tsx", self, "--whole-job-child", JSON.stringify(job)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let peakKiB = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      if (proc.pid) peakKiB = Math.max(peakKiB, await treeRssKiB(proc.pid));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  let out = "";
  proc.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  const code = await new Promise<number | null>((resolve) => proc.once("close", resolve));
  sampling = false;
  await sampler;
  if (code !== 0) throw new Error(`whole-job child exited with ${code}`);
  return { report: JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as WholeJobReport, peakTreeMiB: mib(peakKiB) };
}

interface WholeJob {
  variant: WholeJobVariant;
  report: WholeJobReport;
  peakTreeMiB: number;
  /** CPU seconds and peak RSS of the ffmpeg runs the handler started. */
  ffmpegCpu: number;
  ffmpegPeakMiB: number;
  clipSec: number;
  plainStart: number;
  /** The plain encode of the clips' ranges just before and just after the job, and their mean (the baseline). */
  plainBefore: Cost;
  plainAfter: Cost;
  plain: Cost;
  /** One plain encode of a single stretch as long as the clips, from the first clip's start (the baseline until 2026-11-23). */
  plainContiguous: Cost;
  /** Each uploaded clip's integrated loudness and its duration minus the record's. */
  lufs: number[];
  durationError: number[];
}

interface WholeJobs {
  reel: string;
  reelSec: number;
  buildSec: number;
  words: number;
  jobs: WholeJob[];
}

/**
 * Builds (once) a `WHOLE_JOB_SEC` moving-face reel with the speech looped under it and runs the
 * handler on it through a local S3, with the looped words as its transcript, once per variant.
 * Each job sits between two plain encodes of the source ranges of the clips it made, joined (the
 * first round's first encode, before any job of the variant has run, is of a guessed length,
 * rescaled): the load of a shared machine drifts over a minute, so the baseline is their mean.
 * The reel's stretches differ in how costly they are to encode (panning against still), so the
 * baseline encodes the same pictures as the clips; the baseline of earlier sessions, one stretch
 * as long from the first clip's start, is measured after the job too and shown beside it.
 */
const rangesOf = (clips: ReadonlyArray<{ start: number; durationSec: number }>) =>
  [...clips].sort((a, b) => a.start - b.start).map((c) => ({ start: c.start, sec: c.durationSec }));

async function runWholeJobs(
  wav: string,
  heard: ReadonlyArray<{ word: string; start: number; end: number }>,
  loopSec: number,
  dir: string,
): Promise<WholeJobs> {
  const built = await timed(() => buildReel(wav, "moving", WHOLE_JOB_SEC));
  const reel = built.value;
  const info = videoInfo(await openReel(reel))!;
  const loops = loopWords(heard, loopSec, info.durationSec)
    .map((ws) => ws.filter((w) => w.end <= info.durationSec))
    .filter((ws) => ws.length > 0);
  const transcript: ClipTranscript = {
    textSourceId: "txt_bench",
    language: "en",
    durationSec: info.durationSec,
    segments: loops.map((ws) => ({ start: ws[0]!.start, end: ws.at(-1)!.end, text: ws.map((w) => w.word).join(" "), words: ws })),
  };
  const s3 = await startLocalS3({ buckets: [WHOLE_JOB_BUCKET] });
  try {
    const client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: true,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
    });
    const sourceKey = "src/reel.mp4";
    const transcriptKey = "scratch/transcript.json";
    await client.putObject(WHOLE_JOB_BUCKET, sourceKey, await readFile(reel), "video/mp4");
    await client.putObject(WHOLE_JOB_BUCKET, transcriptKey, JSON.stringify(transcript), "application/json");
    const jobs: WholeJob[] = [];
    for (let round = 0; round < ROUNDS; round++)
      for (const variant of WHOLE_JOB_VARIANTS) {
        // Before the job its clips are unknown: the encode is of the clips the same variant made last
        // round (the job is deterministic), or, the first time, of a guessed length, rescaled.
        const same = jobs.filter((j) => j.variant === variant).at(-1) ?? null;
        const guessSec = same?.clipSec ?? variant.maxClips * (CLIP_SEC + 3);
        const plainOut = path.join(dir, "whole-job-plain.mp4");
        const before = same
          ? await plainEncodeRanges(reel, info.width, info.height, rangesOf(same.report.clips), plainOut)
          : await plainEncode(reel, info.width, info.height, 60, guessSec, plainOut);
        const runsBefore = ffmpegRuns().length;
        const { report, peakTreeMiB } = await runWholeJobChild({ endpoint: s3.endpoint, sourceKey, transcriptKey, variant });
        const runs = ffmpegRuns().slice(runsBefore);
        const clipSec = report.clips.reduce((n, c) => n + c.durationSec, 0);
        const start = Math.max(0, Math.min(Math.min(...report.clips.map((c) => c.start)), info.durationSec - clipSec));
        const after = await plainEncodeRanges(reel, info.width, info.height, rangesOf(report.clips), plainOut);
        // The baseline of earlier sessions: as long, but one stretch of the source from the first clip on.
        const contiguous = await plainEncode(reel, info.width, info.height, start, clipSec, plainOut);
        const lufs: number[] = [];
        const durationError: number[] = [];
        for (const [i, c] of report.clips.entries()) {
          const file = path.join(dir, `whole-job-${variant.name}-${i}.mp4`);
          await writeFile(file, new Uint8Array(await (await client.getObject(WHOLE_JOB_BUCKET, c.videoKey)).arrayBuffer()));
          lufs.push(await integratedLufs(file));
          durationError.push((await durationOf(file)) - c.durationSec);
        }
        const scale = clipSec / guessSec;
        const plainBefore = { wall: before.sec * scale, cpu: before.ffmpegCpu * scale };
        const plainAfter = { wall: after.sec, cpu: after.ffmpegCpu };
        jobs.push({
          variant,
          report,
          peakTreeMiB,
          ffmpegCpu: runs.reduce((n, r) => n + r.cpu, 0),
          ffmpegPeakMiB: mib(Math.max(0, ...runs.map((r) => r.rssKiB))),
          clipSec,
          plainStart: start,
          plainBefore,
          plainAfter,
          plain: { wall: (plainBefore.wall + plainAfter.wall) / 2, cpu: (plainBefore.cpu + plainAfter.cpu) / 2 },
          plainContiguous: { wall: contiguous.sec, cpu: contiguous.ffmpegCpu },
          lufs,
          durationError,
        });
        const job = jobs.at(-1)!;
        console.log(
          `whole job (${variant.name}, round ${round + 1}): handler ${fmt(report.wallSec)} s (CPU ${fmt(report.cpuSec + job.ffmpegCpu)} s) ` +
            `for ${report.clips.length} clips, ${fmt(clipSec)} s; plain encode ${fmt(job.plain.wall)} s (before ${fmt(plainBefore.wall)}, ` +
            `after ${fmt(plainAfter.wall)}; CPU ${fmt(job.plain.cpu)} s), ${fmt(report.wallSec / job.plain.wall, 2)}×; load ${os.loadavg()[0]!.toFixed(1)}`,
        );
      }
    return { reel, reelSec: info.durationSec, buildSec: built.sec, words: loops.reduce((n, ws) => n + ws.length, 0), jobs };
  } finally {
    await s3.close();
  }
}

if (args["whole-job-child"] !== undefined) {
  await wholeJobChild(JSON.parse(args["whole-job-child"]) as WholeJobChildArgs);
  process.exit(0);
}

const dir = await mkdtemp(path.join(os.tmpdir(), "media-jobs-bench-clips-"));
const vision = createVisionEngine(CS.visionEngine, process.env);
try {
  console.log(machineInfo());
  await installFfmpegShim(dir);
  const built = await timed(buildMedia);
  const { wav, moving, wide } = built.value;
  console.log(`reels: ${path.relative(ROOT, moving)} (${MOVING_SEC} s), ${path.relative(ROOT, wide)} (${INTERVIEW_SEC} s)`);

  // Words once, tiled over the loop: captions and the speaking test the reframer uses.
  const speech = createSpeechEngine(DEFAULT_SETTINGS.transcription, process.env);
  const heard = await timed(() => speech.transcribe(wav, { signal }));
  const loopSec = await durationOf(wav);
  const words = loopWords(heard.value.words, loopSec, MOVING_SEC).flat();
  // The handler's speechTest: a word within 0.3 s.
  const speaking = (t: number) => words.some((w) => t >= w.start - 0.3 && t <= w.end + 0.3);
  console.log(`speech: ${heard.value.words.length} words in ${fmt(loopSec)} s, read in ${fmt(heard.sec)} s (setup, not measured below)\n`);

  // Vision: sample frames as the handler's ingest does, then analyse them.
  const load = await timed(async () => {
    const probeDir = path.join(dir, "probe");
    await mkdir(probeDir);
    const one = path.join(probeDir, "one.jpg");
    await runToolOk("ffmpeg", [
      "-hide_banner",
      "-loglevel",
      "error",
      "-ss",
      "1",
      ...INPUT_GUARD,
      "-i",
      moving,
      "-frames:v",
      "1",
      "-vf",
      `scale=${ANALYSIS_WIDTH}:-2`,
      one,
    ]);
    return vision.analyze([{ t: 0, path: one }], { signal });
  });
  const analysed = new Map<
    string,
    { info: VideoInfo; obs: FrameObservation[]; proxySec: number; visionSec: number; visionCpu: number; frames: number }
  >();
  const movingSource = await openReel(moving);
  const wideSource = await openReel(wide);
  for (const [name, file] of [
    ["moving", movingSource],
    ["interview", wideSource],
  ] as const) {
    const info = videoInfo(file)!;
    const framesDir = path.join(dir, `frames-${name}`);
    await mkdir(framesDir);
    const proxy = await timed(() =>
      makeProxy(file, framesDir, {
        frameRate: { num: CS.visionFps, den: 1 },
        width: Math.min(ANALYSIS_WIDTH, info.width),
        energyStep: 0.5,
        sceneThreshold: 10,
        hasAudio: true,
        signal,
      }),
    );
    const cpu0 = process.cpuUsage();
    // One sequence, as the handler analyses a short source's frames: faces followed from frame to frame.
    const obs = await timed(() => vision.analyze(proxy.value.frames, { signal, sequence: name }));
    const cpu = process.cpuUsage(cpu0);
    analysed.set(name, {
      info,
      obs: obs.value,
      proxySec: proxy.sec,
      visionSec: obs.sec,
      visionCpu: (cpu.user + cpu.system) / 1e6,
      frames: proxy.value.frames.length,
    });
  }
  const nodeRssAfterVision = mib(process.resourceUsage().maxRSS);
  const mv = analysed.get("moving")!;
  const iv = analysed.get("interview")!;
  const srcSec = mv.info.durationSec + iv.info.durationSec;
  const visionRtf = (mv.visionSec + iv.visionSec) / srcSec;
  const proxyRtf = (mv.proxySec + iv.proxySec) / srcSec;

  // Reframing on the real observations, as the handler plans a 9:16 crop.
  const srcW = mv.info.width;
  const { cropW, cropH } = cropSize(srcW, mv.info.height, LAYOUT);
  const reframe = { srcW, srcH: mv.info.height, cropW, deadZone: CS.deadZone, maxPanSpeed: CS.maxPanSpeed, confirmSec: CONFIRM_SEC };
  const movingCuts = (await detectSceneCuts(movingSource, SCENE_THRESHOLD, signal)).cuts;
  const movingTargets = targetsOf(mv.obs, speaking);
  // The moving reel's face slides for the first 80 % and then holds: a still speaker from 1 s later.
  const still = { start: MOVING_SEC * 0.8 + 1, end: MOVING_SEC };
  const stillPieces = planCrop(movingTargets, movingCuts, still.start, still.end, reframe);
  const stillPlanned = meanMotion((t) => cropXAt(stillPieces, t), 0, still.end - still.start, CS.fps);
  const stillObs = mv.obs.filter((o) => o.t >= still.start && o.t <= still.end);
  const stillInside =
    stillObs.filter((o) => {
      const cx = largestFaceCx(o);
      const x = cropXAt(stillPieces, o.t - still.start);
      return cx !== null && cx * srcW >= x && cx * srcW <= x + cropW;
    }).length / Math.max(1, stillObs.length);
  const raw = rawFollow(movingTargets, srcW, cropW);
  const stillRaw = meanMotion((t) => raw(t + still.start), 0, still.end - still.start, CS.fps);

  const interviewCuts = (await detectSceneCuts(wideSource, SCENE_THRESHOLD, signal)).cuts;
  const interviewTargets = targetsOf(iv.obs, speaking);
  const changes = Array.from({ length: Math.floor((INTERVIEW_SEC - 3) / SCENE_SEC) }, (_, k) => (k + 1) * SCENE_SEC);
  const withCuts = planCrop(interviewTargets, interviewCuts, 0, INTERVIEW_SEC, reframe);
  const withoutCuts = planCrop(interviewTargets, [], 0, INTERVIEW_SEC, reframe);
  const toInsideCuts = changes.map((c) => timeToInside(withCuts, iv.obs, c, srcW, cropW));
  const toInsidePan = changes.map((c) => timeToInside(withoutCuts, iv.obs, c, srcW, cropW));
  const sideCx = (odd: boolean) =>
    median(
      iv.obs
        .filter((o) => Math.floor(o.t / SCENE_SEC) % 2 === (odd ? 1 : 0))
        .map(largestFaceCx)
        .filter((x): x is number => x !== null),
    );

  // Rendering: N clips through renderClip (as the handler's renderOne prepares them) against one plain encode.
  const { width: W, height: H } = LAYOUT_SIZE[LAYOUT];
  const moments = Array.from({ length: CLIPS }, (_, i) => ({
    start: 4 + i * (CLIP_SEC + GAP_SEC),
    end: 4 + i * (CLIP_SEC + GAP_SEC) + CLIP_SEC,
  }));
  const prepared = await Promise.all(
    moments.map(async (m, i) => {
      const clipWords = words
        .filter((w) => w.start >= m.start - 0.01 && w.end <= m.end + 0.01)
        .map((w) => ({ word: w.word, start: w.start - m.start, end: w.end - m.start }));
      const assPath = path.join(dir, `clip-${i}.ass`);
      await writeFile(assPath, buildAss(clipWords, captionStyleFor(W, H)));
      return { ...m, assPath, crop: planCrop(movingTargets, movingCuts, m.start, m.end, reframe) };
    }),
  );
  const totalSec = CLIPS * CLIP_SEC;
  const none = (): Cost => ({ wall: 0, cpu: 0 });
  const plus = (a: Cost, b: { sec: number; ffmpegCpu: number }): Cost => ({ wall: a.wall + b.sec, cpu: a.cpu + b.ffmpegCpu });
  // As the handler's render stage: each moment's decode (exact cuts, the loudness measure; its dense
  // frames are left out here, the crop was planned on the full observations above), then the clips
  // rendered `atOnce` at a time (the handler's clips.rendersAtOnce, or one at a time).
  const runClips = async (round: number, atOnce: number) => {
    let loudness = none();
    const samples: MomentSample[] = [];
    for (const [i, p] of prepared.entries()) {
      const sample = await timed(() =>
        sampleMoment(movingSource, path.join(dir, `r${round}-${atOnce}-moment-${i}`), {
          start: p.start,
          end: p.start + CLIP_SEC,
          margin: 1,
          frameRate: null,
          width: ANALYSIS_WIDTH,
          sceneThreshold: SCENE_THRESHOLD,
          hasAudio: true,
          signal,
        }),
      );
      loudness = plus(loudness, sample);
      samples.push(sample.value);
    }
    const outputs = prepared.map((_, i) => path.join(dir, `r${round}-${atOnce}-clip-${i}.mp4`));
    const rendered = await timed(() =>
      mapLimit(prepared, atOnce, signal, (p, renderSignal, i) =>
        renderClip({
          source: movingSource,
          output: outputs[i]!,
          start: p.start,
          durationSec: CLIP_SEC,
          layout: LAYOUT,
          fillStyle: null,
          srcW,
          srcH: mv.info.height,
          crop: p.crop,
          cropW,
          cropH,
          assPath: p.assPath,
          loudness: samples[i]!.loudness,
          hasAudio: true,
          brandColor: CS.brandColor,
          logo: null,
          fps: CS.fps,
          preset: CS.x264Preset,
          crf: CS.crf,
          poster: { output: `${outputs[i]!}.jpg`, at: Math.min(1.5, CLIP_SEC / 2) },
          signal: renderSignal,
        }),
      ),
    );
    const render = plus(none(), rendered);
    const stage = { wall: render.wall + loudness.wall, cpu: render.cpu + loudness.cpu };
    return { loudness, render, stage, outputs };
  };
  const runBaseline = async (round: number): Promise<Cost> =>
    plus(none(), await plainEncode(moving, srcW, mv.info.height, moments[0]!.start, totalSec, path.join(dir, `r${round}-plain.mp4`)));
  const AT_ONCE = CS.rendersAtOnce;
  const clipRuns: Array<Awaited<ReturnType<typeof runClips>>> = [];
  const singleRuns: Array<Awaited<ReturnType<typeof runClips>>> = [];
  const baseRuns: Cost[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      baseRuns.push(await runBaseline(r));
      clipRuns.push(await runClips(r, AT_ONCE));
      singleRuns.push(await runClips(r, 1));
    } else {
      singleRuns.push(await runClips(r, 1));
      clipRuns.push(await runClips(r, AT_ONCE));
      baseRuns.push(await runBaseline(r));
    }
    const c = clipRuns[r]!;
    const one = singleRuns[r]!;
    const b = baseRuns[r]!;
    console.log(
      `round ${r + 1}: plain encode ${fmt(b.wall)} s (CPU ${fmt(b.cpu)} s); renderClip ${AT_ONCE} at once ${fmt(c.render.wall)} s (CPU ${fmt(c.render.cpu)} s), ` +
        `${fmt(c.render.wall / b.wall, 2)}×; one at a time ${fmt(one.render.wall)} s (CPU ${fmt(one.render.cpu)} s), ${fmt(one.render.wall / b.wall, 2)}×; ` +
        `moment decodes (cuts, loudness measure) ${fmt(c.loudness.wall)} s`,
    );
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const ratios = (pick: (c: (typeof clipRuns)[number]) => Cost, runs = clipRuns) => {
    const wall = runs.map((c, r) => pick(c).wall / baseRuns[r]!.wall);
    return {
      wall: median(wall),
      lo: Math.min(...wall),
      hi: Math.max(...wall),
      cpu: sum(runs.map((c) => pick(c).cpu)) / sum(baseRuns.map((b) => b.cpu)),
    };
  };
  const renderRatio = ratios((c) => c.render);
  const singleRatio = ratios((c) => c.render, singleRuns);
  const stageRatio = ratios((c) => c.stage);
  const medianOf = (pick: (c: (typeof clipRuns)[number]) => Cost, runs = clipRuns) => ({
    wall: median(runs.map((c) => pick(c).wall)),
    cpu: median(runs.map((c) => pick(c).cpu)),
  });
  const render = medianOf((c) => c.render);
  const single = medianOf((c) => c.render, singleRuns);
  const stage = medianOf((c) => c.stage);
  const base = { wall: median(baseRuns.map((b) => b.wall)), cpu: median(baseRuns.map((b) => b.cpu)) };
  const outLufs = await Promise.all(clipRuns[0]!.outputs.map(integratedLufs));
  const outDur = await Promise.all(clipRuns[0]!.outputs.map(durationOf));
  const nodePeak = mib(process.resourceUsage().maxRSS);
  const childPeak = mib(Math.max(0, ...ffmpegRuns().map((r) => r.rssKiB)));

  const ok = (b: boolean) => (b ? "yes" : "NO");
  // The whole jobs, after every figure above is taken (their ffmpeg runs would change the peaks).
  const whole = WHOLE_JOB_SEC > 0 ? await runWholeJobs(wav, heard.value.words, loopSec, dir) : null;
  const wholeGoal = 2 * 1.3;
  const wholeRows: string[][] = [];
  const wholeNotes: string[] = [];
  for (const variant of WHOLE_JOB_VARIANTS) {
    // With several rounds, the job with the median ratio is shown, beside the range of all.
    const runs = (whole?.jobs ?? []).filter((j) => j.variant === variant);
    if (runs.length === 0) continue;
    const ratios = runs.map((j) => j.report.wallSec / j.plain.wall);
    const job = runs[ratios.indexOf(median(ratios.length % 2 === 1 ? ratios : ratios.slice(1)))]!;
    const r = job.report;
    const ratio = r.wallSec / job.plain.wall;
    const cpu = r.cpuSec + job.ffmpegCpu;
    const inStages = Object.values(r.stageSec).reduce((a, b) => a + b, 0);
    const details = (stage: string) => r.events.find((e) => e.stage === stage && e.event === "completed")?.details ?? {};
    const vis = details("analyze_scenes");
    const rendered = details("render_clips");
    const settings = { ...CS, ...job.variant.clipSettings };
    wholeRows.push(
      [
        `whole job, ${job.variant.name}: handler end to end, ${fmt(whole!.reelSec / 60, 1)}-min reel → ${r.clips.length} clips, ${fmt(job.clipSec)} s ` +
          `(maxClips ${job.variant.maxClips}, ${settings.minClipSec}–${settings.maxClipSec} s, ${r.layout}, ${CS.x264Preset} crf ${CS.crf}): wall`,
        `${fmt(r.wallSec)} s`,
        `one plain libx264 encode of the clips' ${fmt(job.clipSec)} s of source: ${fmt(job.plain.wall)} s (mean of before/after)`,
        runs.length > 1 ? `${fmt(ratio, 2)}× (${fmt(Math.min(...ratios), 2)}–${fmt(Math.max(...ratios), 2)})` : `${fmt(ratio, 2)}×`,
        `≤ ${fmt(wholeGoal, 1)}× (2 × 1.3×)`,
        ok(ratio <= wholeGoal),
      ],
      [
        "  the same, CPU: handler process (vision in it) + its ffmpeg runs",
        `${fmt(cpu)} s (${fmt(r.cpuSec)} + ${fmt(job.ffmpegCpu)})`,
        `${fmt(job.plain.cpu)} s`,
        `${fmt(cpu / job.plain.cpu, 2)}×`,
        "-",
        "-",
      ],
      [
        "  the same job against the earlier baseline: one stretch as long from the first clip's start",
        `${fmt(r.wallSec)} s`,
        `${fmt(job.plainContiguous.wall)} s (CPU ${fmt(job.plainContiguous.cpu)} s)`,
        runs.length > 1
          ? `${fmt(median(runs.map((j) => j.report.wallSec / j.plainContiguous.wall)), 2)}× (median of the rounds)`
          : `${fmt(r.wallSec / job.plainContiguous.wall, 2)}×`,
        "-",
        "-",
      ],
      ...Object.entries(r.stageSec)
        .filter(([, sec]) => sec >= 0.05)
        .map(([stage, sec]) => [
          `  stage ${stage}`,
          `${fmt(sec)} s (${fmt((100 * sec) / r.wallSec, 0)} %)`,
          "-",
          `${fmt(sec / job.plain.wall, 2)}×`,
          "-",
          "-",
        ]),
      ["  outside the stages and stages under 0.05 s (transcript fetch, storage)", `${fmt(r.wallSec - inStages)} s`, "-", "-", "-", "-"],
      [
        "  peak RSS: handler process + its ffmpeg children (sampled every 100 ms)",
        `${fmt(job.peakTreeMiB, 0)} MiB (process alone ${fmt(r.maxRssMiB, 0)} MiB)`,
        `largest ffmpeg in the job: ${fmt(job.ffmpegPeakMiB, 0)} MiB`,
        "-",
        "< 1.5 GB",
        ok(job.peakTreeMiB * 2 ** 20 < 1.5e9),
      ],
    );
    wholeNotes.push(
      `whole job (${job.variant.name}): category ${r.category ?? "none"}, ${r.candidateCount} candidates; clips ${r.clips.map((c) => `${fmt(c.start)}–${fmt(c.end)} s`).join(", ")}; ` +
        `plain encode from ${fmt(job.plainStart)} s; clips ${job.lufs.map((l) => `${fmt(l)} LUFS`).join(", ")}, ` +
        `duration minus the record's ${job.durationError.map((d) => `${fmt(d, 3)} s`).join(", ")}`,
      `whole job (${job.variant.name}) vision: ${String(vis["frames"] ?? "?")} sparse frames beside the ingest decode, ${String(vis["msPerFrame"] ?? "?")} ms each ` +
        `(model load included), ${String(rendered["denseAnalysisFrames"] ?? 0)} dense frames around the moments inside render_clips (faces followed on ${String(rendered["denseFramesFollowed"] ?? 0)}); ` +
        `render_clips stage ${fmt((r.stageSec["render_clips"] ?? Number.NaN) / job.plain.wall, 2)}× the plain encode`,
    );
  }
  if (whole) {
    wholeNotes.unshift(
      `whole jobs: ${path.relative(ROOT, whole.reel)} (${fmt(whole.reelSec)} s; built or found in ${fmt(whole.buildSec)} s, not measured), ` +
        `transcript of ${whole.words} looped words; each job between two plain encodes of its clips' source ranges (the first round's first one of a guessed length, rescaled)`,
    );
  }
  const maxCut = Math.max(...toInsideCuts);
  const maxPan = Math.max(...toInsidePan);
  console.log(
    "\n" +
      table(
        ["figure", "measured", "baseline, same run", "ratio", "goal", "met"],
        [
          [
            `render ${CLIPS} × ${CLIP_SEC} s clips, 9:16 ${W}×${H}, ${CS.x264Preset} crf ${CS.crf} ${CS.fps} fps, ${AT_ONCE} at once as the handler renders: wall time`,
            `renderClip ${fmt(render.wall)} s`,
            `one plain libx264 encode of ${totalSec} s: ${fmt(base.wall)} s`,
            `${fmt(renderRatio.wall, 2)}× (${fmt(renderRatio.lo, 2)}–${fmt(renderRatio.hi, 2)})`,
            "≤ 1.3×",
            ok(renderRatio.wall <= 1.3),
          ],
          [
            "  the same, ffmpeg CPU time",
            `${fmt(render.cpu)} s`,
            `${fmt(base.cpu)} s`,
            `${fmt(renderRatio.cpu, 2)}×`,
            "≤ 1.3×",
            ok(renderRatio.cpu <= 1.3),
          ],
          [
            "  the same clips rendered one at a time: wall, CPU",
            `${fmt(single.wall)} s, ${fmt(single.cpu)} s`,
            `${fmt(base.wall)} s, ${fmt(base.cpu)} s`,
            `${fmt(singleRatio.wall, 2)}× (${fmt(singleRatio.lo, 2)}–${fmt(singleRatio.hi, 2)}), ${fmt(singleRatio.cpu, 2)}×`,
            "-",
            "-",
          ],
          [
            "  with the moment decodes (exact cuts, loudness measure), as the handler renders: wall, CPU",
            `${fmt(stage.wall)} s, ${fmt(stage.cpu)} s`,
            `${fmt(base.wall)} s, ${fmt(base.cpu)} s`,
            `${fmt(stageRatio.wall, 2)}×, ${fmt(stageRatio.cpu, 2)}×`,
            "-",
            "-",
          ],
          [
            `vision: s of analysis per s of source (${CS.visionFps} fps, ${ANALYSIS_WIDTH} px, ${mv.frames + iv.frames} frames)`,
            `${fmt(visionRtf, 3)}×`,
            `sampling the frames with ffmpeg: ${fmt(proxyRtf, 3)}×`,
            `${fmt(visionRtf / proxyRtf, 1)}×`,
            "≤ 0.5×",
            ok(visionRtf <= 0.5),
          ],
          [
            `still speaker: mean crop movement per output frame (${fmt(still.end - still.start)} s)`,
            `${fmt(stillPlanned, 2)} px, face inside ${fmt(stillInside * 100, 0)} %`,
            `crop on raw detections: ${fmt(stillRaw, 2)} px`,
            "-",
            "< 2 px",
            ok(stillPlanned < 2),
          ],
          [
            `speaker change: new speaker inside the crop, worst of ${changes.length} (mean)`,
            `${fmt(maxCut, 2)} s (${fmt(mean(toInsideCuts), 2)} s)`,
            `without scene cuts, panning: ${fmt(maxPan, 2)} s (${fmt(mean(toInsidePan), 2)} s)`,
            "-",
            "≤ 1 s",
            ok(maxCut <= 1),
          ],
          [
            "peak RSS: this process (vision engine in it)",
            `${fmt(nodePeak, 0)} MiB`,
            `largest ffmpeg child: ${fmt(childPeak, 0)} MiB`,
            "-",
            "< 1.5 GB",
            ok(nodePeak * 2 ** 20 < 1.5e9),
          ],
          ...wholeRows,
        ],
      ),
  );
  console.log(
    [
      "",
      `rounds: ${ROUNDS}, alternating which side goes first; wall ratio: median of the rounds' ratios (range); CPU ratio: summed over the rounds`,
      `vision per reel: moving ${fmt(mv.visionSec)} s for ${fmt(mv.info.durationSec)} s, interview ${fmt(iv.visionSec)} s for ${fmt(iv.info.durationSec)} s; CPU ${fmt((mv.visionCpu + iv.visionCpu) / srcSec, 3)} s per s of source; faces followed (no detector run) on ${[mv, iv].map((r) => `${r.obs.filter((o) => o.followed).length} of ${r.obs.length}`).join(" and ")} frames; model load (first frame, not in the figure) ${fmt(load.sec)} s; peak RSS after vision ${fmt(nodeRssAfterVision, 0)} MiB`,
      `interview faces (median centre, share of the width): A ${fmt(sideCx(false), 2)}, B ${fmt(sideCx(true), 2)}; crop ${cropW} of ${srcW} px`,
      `scene cuts found: interview ${interviewCuts.map((c) => fmt(c, 2)).join(", ")} (true changes every ${SCENE_SEC} s); moving ${movingCuts.length}`,
      `speaker change, per change (s): with cuts ${toInsideCuts.map((t) => fmt(t, 2)).join(", ")}; panning ${toInsidePan.map((t) => fmt(t, 2)).join(", ")}`,
      `rendered clips: ${outLufs.map((l) => `${fmt(l)} LUFS`).join(", ")}; durations ${outDur.map((d) => `${fmt(d, 2)} s`).join(", ")}`,
      ...wholeNotes,
      `command: npx tsx bench/clips.ts --clips ${CLIPS} --clip-sec ${CLIP_SEC} --rounds ${ROUNDS}` +
        (WHOLE_JOB_SEC > 0 ? ` --whole-job-min ${WHOLE_JOB_MIN}` : ""),
    ].join("\n"),
  );
} finally {
  await vision.close();
  await rm(dir, { recursive: true, force: true });
}
