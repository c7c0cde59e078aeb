import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { join } from "node:path";
import type { VisualChunk } from "../../contracts/transcript";
import { mediaInput, sampleBound, type MediaInput } from "./source";
import { FFMPEG, FFPROBE, fileInput, runTool, runToolOk, ToolError } from "./spawn";

/**
 * ffmpeg/ffprobe helpers for the transcription pipeline. Every helper works file to file and reads
 * tool output line by line, so memory stays flat whatever the media length. A helper that may read
 * the customer's source takes a MediaInput (the source as media/source.ts accepted it); the others
 * read our own work files.
 */
/** `-nostdin` keeps ffmpeg from stealing the terminal; `-y` because work files are ours. */
const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

export interface ProbeStream {
  index: number;
  codecType: string;
  codecName: string | null;
}

export interface ProbeResult {
  durationSec: number;
  formatName: string;
  streams: ProbeStream[];
  hasAudio: boolean;
  hasVideo: boolean;
}

/** The source could not be read as media at all: not a transient failure. */
export class UnreadableMediaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnreadableMediaError";
  }
}

interface FfprobeJson {
  format?: { duration?: string; format_name?: string };
  streams?: { index?: number; codec_type?: string; codec_name?: string; duration?: string; disposition?: { attached_pic?: number } }[];
}

/** Probes one of our own files (an extracted track, a rendered video); a customer's source goes through media/source.ts. */
export async function probe(path: string, signal?: AbortSignal): Promise<ProbeResult> {
  const res = await runTool(
    FFPROBE,
    [
      "-v",
      "error",
      "-show_entries",
      "format=duration,format_name:stream=index,codec_type,codec_name,duration:stream_disposition=attached_pic",
      "-of",
      "json",
      ...fileInput(path),
    ],
    { signal, collectStdout: true },
  );
  if (res.code !== 0) {
    throw new UnreadableMediaError(
      `source is not a readable media file (${res.stderrTail.at(-1)?.replace(/^.*?: /, "") ?? "ffprobe failed"})`,
    );
  }
  const json = JSON.parse(res.stdout || "{}") as FfprobeJson;
  const rawStreams = json.streams ?? [];
  const streams: ProbeStream[] = rawStreams.map((s, i) => ({
    index: s.index ?? i,
    codecType: s.codec_type ?? "unknown",
    codecName: s.codec_name ?? null,
  }));
  // Cover art in an audio file is a "video" stream with one picture: it has no scenes to analyse.
  const hasVideo = rawStreams.some((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  const hasAudio = streams.some((s) => s.codecType === "audio");
  const candidates = [json.format?.duration, ...rawStreams.map((s) => s.duration)].map(Number).filter((n) => Number.isFinite(n) && n > 0);
  const durationSec = candidates.length ? Math.max(...candidates) : NaN;
  if (!Number.isFinite(durationSec)) throw new UnreadableMediaError("source has no measurable duration");
  return { durationSec, formatName: json.format?.format_name ?? "unknown", streams, hasAudio, hasVideo };
}

const NOISE_FLOOR_FILTER = "astats=measure_overall=Noise_floor:measure_perchannel=none";

/** Reads astats' overall noise floor from an ffmpeg log line into `set`, if the line carries it. */
function noiseFloorFrom(line: string, set: (db: number) => void): void {
  const m = /Noise floor dB: (-?inf|-?[\d.]+)/.exec(line);
  if (m?.[1] !== undefined) set(m[1].endsWith("inf") ? Number.NEGATIVE_INFINITY : Number(m[1]));
}

/**
 * The 16 kHz mono signed 16-bit PCM track every engine reads (what PocketSphinx's en-us model
 * expects and Whisper resamples to anyway), and its noise floor measured in the same pass
 * (astats sees the converted audio), so denoising needs no second read of the track to plan.
 * `highPass` applies the denoise chain's fixed high-pass here too: with an engine that reduces
 * noise itself (PocketSphinx) that is the whole chain, and denoising costs no second pass.
 */
export async function extractAudio(
  input: MediaInput,
  output: string,
  signal?: AbortSignal,
  opts: { highPass?: boolean } = {},
): Promise<{ noiseFloorDb: number }> {
  const bound = sampleBound(input, 16000);
  const chain = [
    "aformat=sample_fmts=s16:channel_layouts=mono:sample_rates=16000",
    ...(bound ? [bound] : []),
    ...(opts.highPass ? [DENOISE_HIGHPASS] : []),
    NOISE_FLOOR_FILTER,
  ];
  let noiseFloorDb = Number.NEGATIVE_INFINITY;
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      "-y",
      "-loglevel",
      "info",
      ...mediaInput(input),
      "-vn",
      "-sn",
      "-dn",
      "-af",
      chain.join(","),
      "-c:a",
      "pcm_s16le",
      "-f",
      "wav",
      output,
    ],
    { signal, onStderrLine: (line) => noiseFloorFrom(line, (db) => (noiseFloorDb = db)) },
  );
  return { noiseFloorDb };
}

/** The part of every denoise chain that needs no measurement, so extraction can apply it in its own pass. */
export const DENOISE_HIGHPASS = "highpass=f=80";

export interface DenoisePlan {
  /** The whole chain, as it is applied to the extracted track. */
  filter: string;
  noiseFloorDb: number | null;
  spectral: boolean;
  /** What is left to run after an extraction that applied DENOISE_HIGHPASS already; null: nothing. */
  afterExtraction: string | null;
}

/**
 * Chooses the denoise chain. A high-pass at 80 Hz (rumble, hum, handling noise) always helps.
 * Spectral noise reduction (afftdn, with its floor set to the measured one) is added only when
 * the audio is actually noisy and the engine has no noise reduction of its own: PocketSphinx
 * already runs spectral subtraction on its features, and on the LibriVox samples adding afftdn
 * raised its WER from 0.27 to 0.38 on clean audio and from 0.38 to 0.49 with pink noise mixed in.
 */
export function planDenoise(noiseFloorDb: number, engineReducesNoise: boolean): DenoisePlan {
  const noisy = Number.isFinite(noiseFloorDb) && noiseFloorDb > -50;
  const spectral = noisy && !engineReducesNoise;
  const floor = Number.isFinite(noiseFloorDb) ? Math.round(Math.max(-80, Math.min(-20, noiseFloorDb))) : null;
  const afftdn = spectral ? `afftdn=nr=12:nf=${floor}` : null;
  return { filter: afftdn ? `${DENOISE_HIGHPASS},${afftdn}` : DENOISE_HIGHPASS, noiseFloorDb: floor, spectral, afterExtraction: afftdn };
}

export async function denoise(input: string, output: string, filter: string, signal?: AbortSignal): Promise<void> {
  await runToolOk(FFMPEG, [...FF_BASE, ...fileInput(input), "-af", filter, "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", output], {
    signal,
  });
}

/**
 * Vocal isolation without a neural separator. The extracted track is already the mid channel
 * (L+R)/2 of a stereo source, which keeps centre-panned dialogue and cancels anti-phase ambience;
 * this stage then band-limits it to the speech band (150 Hz–4 kHz), where music beds carry less
 * energy than voices, and evens out levels so quiet dialogue is not lost under them. Much weaker
 * than a source-separation model (Demucs and the like), but real, cheap and dependency-free.
 */
export const VOCAL_FILTER = "highpass=f=150,lowpass=f=4000,dynaudnorm=f=250";

export async function separateVocals(input: string, output: string, signal?: AbortSignal): Promise<void> {
  await runToolOk(
    FFMPEG,
    [...FF_BASE, ...fileInput(input), "-vn", "-af", VOCAL_FILTER, "-ac", "1", "-ar", "16000", "-c:a", "pcm_s16le", output],
    {
      signal,
    },
  );
}

export interface Silence {
  start: number;
  end: number;
}

/** Silences of at least `minSilenceSec` below `noiseDb`, from ffmpeg's silencedetect log. */
export async function detectSilences(
  input: string,
  opts: { noiseDb?: number; minSilenceSec?: number; signal?: AbortSignal } = {},
): Promise<Silence[]> {
  const silences: Silence[] = [];
  let pendingStart: number | null = null;
  const args = [
    "-hide_banner",
    "-nostdin",
    ...fileInput(input),
    "-af",
    `silencedetect=noise=${opts.noiseDb ?? -35}dB:d=${opts.minSilenceSec ?? 0.3}`,
    "-f",
    "null",
    "-",
  ];
  await runToolOk(FFMPEG, args, {
    signal: opts.signal,
    onStderrLine: (line) => {
      const start = /silence_start: (-?[\d.]+)/.exec(line);
      if (start?.[1] !== undefined) pendingStart = Math.max(0, Number(start[1]));
      const end = /silence_end: ([\d.]+)/.exec(line);
      if (end?.[1] !== undefined && pendingStart !== null) {
        silences.push({ start: pendingStart, end: Number(end[1]) });
        pendingStart = null;
      }
    },
  });
  // A file ending in silence reports only the start; close it at infinity, the caller clamps.
  if (pendingStart !== null) silences.push({ start: pendingStart, end: Number.POSITIVE_INFINITY });
  return silences;
}

export interface ChunkRange {
  index: number;
  start: number;
  end: number;
}

/**
 * Chooses chunk boundaries: each chunk ends at the midpoint of the latest silence that keeps it
 * within `maxChunkSec`, so no cut falls inside a word. When a stretch has no silence at all, the
 * cut is forced at the limit and the next chunk starts `overlapSec` earlier; merge removes the
 * words both chunks then heard.
 */
export function planChunks(
  durationSec: number,
  silences: readonly Silence[],
  opts: { maxChunkSec: number; minChunkSec?: number; overlapSec?: number },
): ChunkRange[] {
  const max = opts.maxChunkSec;
  const min = Math.min(opts.minChunkSec ?? Math.max(1, max / 4), max);
  const overlap = opts.overlapSec ?? 1;
  const midpoints = silences
    .map((s) => (s.start + Math.min(s.end, durationSec)) / 2)
    .filter((m) => m > 0 && m < durationSec)
    .sort((a, b) => a - b);
  const chunks: ChunkRange[] = [];
  let cursor = 0;
  while (durationSec - cursor > max) {
    const limit = cursor + max;
    let cut: number | undefined;
    for (const m of midpoints) {
      if (m > limit) break;
      if (m >= cursor + min) cut = m;
    }
    if (cut !== undefined) {
      chunks.push({ index: chunks.length, start: cursor, end: cut });
      cursor = cut;
    } else {
      chunks.push({ index: chunks.length, start: cursor, end: limit });
      cursor = limit - overlap;
    }
  }
  chunks.push({ index: chunks.length, start: cursor, end: durationSec });
  return chunks;
}

/** Cuts [start, end) of a WAV into its own WAV (re-encoded PCM, so the cut is sample accurate). */
export async function cutChunk(input: string, range: ChunkRange, output: string, signal?: AbortSignal): Promise<void> {
  await runToolOk(
    FFMPEG,
    [
      ...FF_BASE,
      ...mediaInput(input, { seek: range.start, duration: range.end - range.start }),
      "-ac",
      "1",
      "-ar",
      "16000",
      "-c:a",
      "pcm_s16le",
      output,
    ],
    { signal },
  );
}

export type CompressedFormat = "mp3" | "ogg";

/** ~32 kbps mono: a 2-minute chunk becomes ~480 kB, cheap to upload and still clean for Whisper. */
export async function compressChunk(input: string, output: string, format: CompressedFormat, signal?: AbortSignal): Promise<void> {
  const codec = format === "ogg" ? ["-c:a", "libopus", "-b:a", "32k", "-f", "ogg"] : ["-c:a", "libmp3lame", "-b:a", "32k", "-f", "mp3"];
  await runToolOk(FFMPEG, [...FF_BASE, ...fileInput(input), "-ac", "1", "-ar", "16000", ...codec, output], { signal });
}

export interface VideoAnalysisOptions {
  /** Scene-change score threshold of ffmpeg's `scene` expression (0..1). */
  sceneThreshold?: number;
  /** Decoder and filter threads; 1 when the analysis runs beside other CPU-bound work. Default: ffmpeg's choice. */
  threads?: number;
  signal?: AbortSignal;
}

interface FrameStats {
  t: number;
  yavg: number;
  uavg: number;
  vavg: number;
  satavg: number;
  hueavg: number;
}

/**
 * Scene changes and per-scene visual descriptors in one decode: the picture is scaled down first
 * (scene scores and averages do not need resolution), one branch runs the scene detector with
 * showinfo to log cut times, the other samples one frame a second through signalstats into a
 * metadata file that is then read back line by line.
 */
export async function analyseVideo(
  input: MediaInput,
  workDir: string,
  durationSec: number,
  opts: VideoAnalysisOptions = {},
): Promise<VisualChunk[]> {
  const threshold = opts.sceneThreshold ?? 0.3;
  const statsFile = join(workDir, "signalstats.txt");
  const graph =
    `[0:v]scale=160:-2,split[a][b];` +
    `[a]select='gt(scene,${threshold})',showinfo[cuts];` +
    `[b]fps=1,signalstats,metadata=mode=print:file=${statsFile.replace(/([\\':])/g, "\\$1")}[stats]`;
  const cuts: number[] = [];
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      "-y",
      ...(opts.threads ? ["-threads", String(opts.threads), "-filter_complex_threads", String(opts.threads)] : []),
      ...mediaInput(input),
      "-an",
      "-sn",
      "-filter_complex",
      graph,
      "-map",
      "[cuts]",
      "-f",
      "null",
      "-",
      "-map",
      "[stats]",
      "-f",
      "null",
      "-",
    ],
    {
      signal: opts.signal,
      onStderrLine: (line) => {
        if (!line.includes("Parsed_showinfo")) return;
        const m = /pts_time:\s*([\d.]+)/.exec(line);
        if (m?.[1] !== undefined) cuts.push(Number(m[1]));
      },
    },
  );
  const frames = await readSignalStats(statsFile);
  const bounds = [0, ...cuts.filter((c) => c > 0.5 && c < durationSec - 0.5).sort((a, b) => a - b), durationSec];
  const chunks: VisualChunk[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const start = bounds[i] ?? 0;
    const end = bounds[i + 1] ?? durationSec;
    if (end - start < 0.05) continue;
    const inScene = frames.filter((f) => f.t >= start && f.t < end);
    const sample = inScene.length ? inScene : nearestFrame(frames, (start + end) / 2);
    chunks.push(describeScene(chunks.length, start, end, sample));
  }
  return chunks;
}

function nearestFrame(frames: FrameStats[], t: number): FrameStats[] {
  let best: FrameStats | undefined;
  for (const f of frames) if (!best || Math.abs(f.t - t) < Math.abs(best.t - t)) best = f;
  return best ? [best] : [];
}

async function readSignalStats(file: string): Promise<FrameStats[]> {
  const frames: FrameStats[] = [];
  let current: Partial<FrameStats> | null = null;
  const push = () => {
    if (current && current.t !== undefined && current.yavg !== undefined) {
      frames.push({
        t: current.t,
        yavg: current.yavg,
        uavg: current.uavg ?? 128,
        vavg: current.vavg ?? 128,
        satavg: current.satavg ?? 0,
        hueavg: current.hueavg ?? 0,
      });
    }
  };
  let lines;
  try {
    lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
    for await (const line of lines) {
      const frame = /pts_time:([\d.]+)/.exec(line);
      if (frame?.[1] !== undefined) {
        push();
        current = { t: Number(frame[1]) };
        continue;
      }
      const kv = /^lavfi\.signalstats\.(YAVG|UAVG|VAVG|SATAVG|HUEAVG)=([\d.+-eE]+)/.exec(line);
      if (kv?.[1] && kv[2] !== undefined && current) current[kv[1].toLowerCase() as "yavg"] = Number(kv[2]);
    }
  } catch (err) {
    // No video frames at all means no stats file: that is "no scenes", not a failure.
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
  push();
  return frames;
}

const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Turns averaged YUV statistics into descriptors and a one-line summary summarization can read. */
function describeScene(index: number, start: number, end: number, frames: FrameStats[]): VisualChunk {
  const luma = mean(frames.map((f) => f.yavg));
  const u = mean(frames.map((f) => f.uavg)) - 128;
  const v = mean(frames.map((f) => f.vavg)) - 128;
  const saturation = mean(frames.map((f) => f.satavg));
  const hue = mean(frames.map((f) => f.hueavg));
  const brightness = luma < 60 ? "dark" : luma > 170 ? "bright" : "medium-lit";
  const colourfulness = saturation < 10 ? "nearly monochrome" : saturation < 40 ? "muted colours" : "vivid colours";
  const dominant = dominantColour(u, v, saturation);
  return {
    index,
    start: round(start, 3),
    end: round(end, 3),
    summary: `scene ${index + 1} (${start.toFixed(1)}–${end.toFixed(1)} s): ${brightness}, ${colourfulness}${dominant === "neutral" ? "" : `, mostly ${dominant}`}`,
    descriptors: {
      meanLuma: round(luma),
      meanU: round(u + 128),
      meanV: round(v + 128),
      meanSaturation: round(saturation),
      meanHue: round(hue),
      dominantColour: dominant,
      sampledFrames: frames.length,
    },
  };
}

/** Names the chroma direction of the average pixel (U = blue-difference, V = red-difference). */
function dominantColour(u: number, v: number, saturation: number): string {
  if (saturation < 10 || Math.hypot(u, v) < 6) return "neutral";
  // Hue angles of the BT.601 primaries in the (U, V) plane: blue ≈ -9°, magenta ≈ 52°, red ≈ 108°,
  // orange ≈ 149°, yellow ≈ 171°, green ≈ -128°, cyan ≈ -82°.
  const angle = (Math.atan2(v, u) * 180) / Math.PI;
  if (angle >= -50 && angle < 20) return "blue";
  if (angle >= 20 && angle < 80) return "magenta";
  if (angle >= 80 && angle < 130) return "red";
  if (angle >= 130 && angle < 160) return "orange";
  if (angle >= 160 || angle < -165) return "yellow";
  if (angle >= -165 && angle < -105) return "green";
  return "cyan";
}

export { ToolError };
