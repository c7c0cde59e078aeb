import type { Settings } from "../../contracts/settings";
import { StepFailure } from "../../contracts/step-failure";
import { recordSourceDuration } from "../task-scope";
import { FFMPEG, FFPROBE, INPUT_GUARD, runTool } from "./spawn";

/**
 * The one way a runner opens a customer's media. A source is accepted once, before anything
 * decodes it:
 *
 *  1. ffprobe reads it with local files only (`-protocol_whitelist file`) and only the demuxers of
 *     the container formats below (`-format_whitelist`): a playlist or manifest (HLS, DASH), a
 *     concat list or any other container is refused before its demuxer opens anything it names;
 *  2. its format, stream count, picture size and frame rate are checked against `runner.*`;
 *  3. its duration is measured from its packets (a demux-only pass, no decoding), not taken from
 *     the container: the pass stops just past the allowed maximum, so a file that claims 100 s and
 *     holds five hours is read for an hour and refused, and one that claims 10⁹ s is as long as what
 *     it holds;
 *  4. every later step opens it through `sourceInput`: local files only, the accepted demuxer named
 *     (`-f`, so no step content-probes its way into another one) and reading bounded by `-t` at the
 *     measured duration.
 *
 * Refusals are `unsupported_media` or `duration_exceeded`, both final: a retry reads the same file.
 */

/** Containers a video service reads (clip generation, thumbnails, dubbing), by demuxer: what they hold. */
export const VIDEO_CONTAINERS: Readonly<Record<string, string>> = {
  mov: "MP4, MOV, M4V, M4A, 3GP",
  matroska: "Matroska, WebM",
  avi: "AVI",
  mpegts: "MPEG-TS",
  mpeg: "MPEG-PS (MPG, VOB)",
  flv: "FLV",
  asf: "ASF, WMV, WMA",
};

/** Audio-only containers, also read where a sound is enough (transcription, voice creation). */
export const AUDIO_CONTAINERS: Readonly<Record<string, string>> = {
  wav: "WAV",
  mp3: "MP3",
  ogg: "Ogg (Vorbis, Opus)",
  flac: "FLAC",
  aac: "AAC (ADTS)",
};

/** `video`: a service that needs a picture; `any`: audio containers too. */
export type SourceKind = "video" | "any";

export type SourceLimits = Pick<
  Settings["runner"],
  "maxDurationSec" | "maxWidth" | "maxHeight" | "maxPixels" | "maxFrameRate" | "maxStreams"
>;

export interface SourceStream {
  index: number;
  codecType: string;
  codecName: string | null;
}

export interface AcceptedSource {
  path: string;
  /** The demuxer every later step names (`-f`). */
  format: string;
  /** ffprobe's `format_name` (e.g. `mov,mp4,m4a,3gp,3g2,mj2`). */
  formatName: string;
  /** Measured from the packets: what later steps rely on. */
  durationSec: number;
  /** What the container says, for the record; null when it says nothing. */
  declaredDurationSec: number | null;
  streams: SourceStream[];
  hasAudio: boolean;
  /** A picture stream that is not cover art. */
  hasVideo: boolean;
  /** The first such stream's picture. */
  video: { width: number; height: number; fps: number } | null;
}

/**
 * Seconds read past the allowed maximum: a source a little over it is measured exactly (its
 * message names its own duration); a longer one is read this far and no further.
 */
const OVERRUN_SEC = 10;
/** Slack on a later step's `-t`: timestamps rounded in the measuring pass never cut the last frame. */
const DECODE_MARGIN_SEC = 1;

interface ProbeJson {
  format?: { duration?: string; format_name?: string };
  streams?: Array<{
    index?: number;
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    disposition?: { attached_pic?: number };
  }>;
}

export function containersFor(kind: SourceKind): Readonly<Record<string, string>> {
  return kind === "video" ? VIDEO_CONTAINERS : { ...VIDEO_CONTAINERS, ...AUDIO_CONTAINERS };
}

const unsupported = (message: string) => new StepFailure("unsupported_media", message, false);

/** Accepts a customer's source for a service, or refuses it (see the module comment). */
export async function openSource(
  file: string,
  opts: { kind: SourceKind; limits: SourceLimits; signal: AbortSignal },
): Promise<AcceptedSource> {
  const containers = containersFor(opts.kind);
  const demuxers = Object.keys(containers);
  const supported = () => `supported: ${Object.values(containers).join("; ")}`;
  const res = await runTool(
    FFPROBE,
    [
      "-v",
      "error",
      ...INPUT_GUARD,
      "-format_whitelist",
      demuxers.join(","),
      "-show_entries",
      "format=duration,format_name:stream=index,codec_type,codec_name,width,height,avg_frame_rate:stream_disposition=attached_pic",
      "-of",
      "json",
      "-i",
      file,
    ],
    { signal: opts.signal, collectStdout: true },
  );
  if (res.code !== 0) {
    const refused = res.stderrTail.map((l) => /^\[([\w,]+) @ [^\]]*\] Format not on whitelist/.exec(l)).find((m) => m);
    if (refused) throw unsupported(`the source is ${describeFormat(refused[1]!)}, not a container this service reads (${supported()})`);
    const why = res.stderrTail.at(-1)?.replace(/^.*?: /, "") ?? "ffprobe failed";
    throw unsupported(`the source is not a readable media file (${why})`);
  }
  const json = JSON.parse(res.stdout || "{}") as ProbeJson;
  const formatName = json.format?.format_name ?? "unknown";
  const format = demuxers.find((d) => formatName.split(",").includes(d));
  if (!format) throw unsupported(`the source is ${describeFormat(formatName)}, not a container this service reads (${supported()})`);

  const raw = json.streams ?? [];
  const { limits } = opts;
  if (raw.length > limits.maxStreams) {
    throw unsupported(`the source has ${raw.length} streams; at most ${limits.maxStreams} are accepted (runner.maxStreams)`);
  }
  for (const s of raw) {
    if (s.codec_type !== "video") continue;
    checkPicture(s.width ?? 0, s.height ?? 0, limits);
    const fps = rate(s.avg_frame_rate);
    if (fps !== null && fps > limits.maxFrameRate) throw frameRateOver(fps, limits, "declares");
  }
  const picture = raw.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1 && s.width && s.height);
  const streams = raw.map((s, i) => ({ index: s.index ?? i, codecType: s.codec_type ?? "unknown", codecName: s.codec_name ?? null }));
  const declared = Number(json.format?.duration);
  const declaredDurationSec = Number.isFinite(declared) && declared > 0 ? declared : null;

  const measured = await measureDuration(file, format, limits.maxDurationSec + OVERRUN_SEC, opts.signal);
  if (!(measured.durationSec > 0)) throw unsupported("the source holds no audio or video to measure a duration from");
  if (measured.durationSec > limits.maxDurationSec) {
    const cut = measured.durationSec >= limits.maxDurationSec + OVERRUN_SEC - 0.05;
    const claim =
      declaredDurationSec !== null && Math.abs(declaredDurationSec - measured.durationSec) > 1
        ? ` (the container declares ${declaredDurationSec.toFixed(1)} s)`
        : "";
    throw new StepFailure(
      "duration_exceeded",
      `source duration ${cut ? "of at least " : ""}${measured.durationSec.toFixed(1)} s exceeds the maximum of ${limits.maxDurationSec} s${claim}`,
      false,
    );
  }
  // Packets actually read: a stream that declares no frame rate (or a false one) is measured too.
  if (picture && measured.videoPackets > 0 && measured.durationSec >= 1) {
    const fps = measured.videoPackets / measured.durationSec;
    if (fps > limits.maxFrameRate * 1.05) throw frameRateOver(fps, limits, "holds");
  }
  recordSourceDuration(measured.durationSec);
  return {
    path: file,
    format,
    formatName,
    durationSec: measured.durationSec,
    declaredDurationSec,
    streams,
    hasAudio: streams.some((s) => s.codecType === "audio"),
    hasVideo: picture !== undefined,
    video: picture ? { width: picture.width!, height: picture.height!, fps: rate(picture.avg_frame_rate) ?? 0 } : null,
  };
}

/**
 * The input arguments of a later step that reads an accepted source: local files only, the
 * accepted demuxer, an optional seek, and reading bounded by `-t` (the step's own length, never
 * more than what was measured).
 */
export function sourceInput(src: AcceptedSource, opts: { seek?: number; duration?: number } = {}): string[] {
  const seek = opts.seek ?? 0;
  const left = Math.max(0, src.durationSec - seek) + DECODE_MARGIN_SEC;
  const t = Math.min(opts.duration ?? Number.POSITIVE_INFINITY, left);
  return [
    ...INPUT_GUARD,
    "-f",
    src.format,
    ...(opts.seek !== undefined ? ["-ss", seek.toFixed(3)] : []),
    "-t",
    t.toFixed(3),
    "-i",
    src.path,
  ];
}

function checkPicture(width: number, height: number, limits: SourceLimits): void {
  if (width > limits.maxWidth || height > limits.maxHeight || width * height > limits.maxPixels) {
    throw unsupported(
      `the source's picture is ${width}×${height} (${(width * height).toLocaleString("en-US")} pixels); the maximum is ${limits.maxWidth}×${limits.maxHeight} and ${limits.maxPixels.toLocaleString("en-US")} pixels (runner.maxWidth, maxHeight, maxPixels)`,
    );
  }
}

function frameRateOver(fps: number, limits: SourceLimits, verb: "declares" | "holds"): StepFailure {
  return unsupported(
    `the source ${verb} ${Math.round(fps * 100) / 100} frames per second; at most ${limits.maxFrameRate} are accepted (runner.maxFrameRate)`,
  );
}

/** `30000/1001` → 29.97; null when unknown (`0/0`). */
function rate(r: string | undefined): number | null {
  const [n, d] = (r ?? "").split("/").map(Number);
  const v = n !== undefined && d ? n / d : NaN;
  return Number.isFinite(v) && v > 0 ? v : null;
}

const FORMAT_NAMES: Readonly<Record<string, string>> = {
  hls: "an HLS playlist",
  dash: "a DASH manifest",
  concat: "a concat list",
  webm_dash_manifest: "a WebM DASH manifest",
};

function describeFormat(name: string): string {
  return FORMAT_NAMES[name] ?? `in format ${name}`;
}

/**
 * The source's duration from its packets: every audio and video packet copied to nowhere (no
 * decoding), stopping once `stopAfterSec` is read. ffmpeg's progress report gives the time reached
 * and the first video stream's packet count.
 */
async function measureDuration(
  file: string,
  format: string,
  stopAfterSec: number,
  signal: AbortSignal,
): Promise<{ durationSec: number; videoPackets: number }> {
  let outUs = NaN;
  let frames = 0;
  const res = await runTool(
    FFMPEG,
    [
      ...["-hide_banner", "-nostdin", "-nostats", "-loglevel", "error", "-progress", "pipe:1"],
      ...[...INPUT_GUARD, "-f", format, "-t", stopAfterSec.toFixed(3), "-i", file],
      ...["-map", "0:v?", "-map", "0:a?", "-c", "copy", "-f", "null", "-"],
    ],
    {
      signal,
      onStdoutLine: (line) => {
        const us = /^out_time_us=(\d+)$/.exec(line);
        if (us) outUs = Number(us[1]);
        const f = /^frame=(\d+)$/.exec(line);
        if (f) frames = Number(f[1]);
      },
    },
  );
  if (res.code !== 0) {
    throw unsupported(`the source could not be read through (${res.stderrTail.at(-1)?.replace(/^.*?: /, "") ?? "ffmpeg failed"})`);
  }
  return { durationSec: Number.isFinite(outUs) ? outUs / 1e6 : 0, videoPackets: frames };
}

/** An ffmpeg input: a customer's accepted source, or a path to one of our own work files. */
export type MediaInput = AcceptedSource | string;

/** The input arguments for either kind of input (see sourceInput); `seek`/`duration` as `-ss`/`-t`. */
export function mediaInput(input: MediaInput, opts: { seek?: number; duration?: number } = {}): string[] {
  if (typeof input !== "string") return sourceInput(input, opts);
  return [
    ...INPUT_GUARD,
    ...(opts.seek !== undefined ? ["-ss", opts.seek.toFixed(3)] : []),
    ...(opts.duration !== undefined ? ["-t", opts.duration.toFixed(3)] : []),
    "-i",
    input,
  ];
}

/**
 * An audio filter ending a decode at the source's measured duration counted in samples (`atrim`
 * counts what it passes, whatever the packets' timestamps claim), for a chain running at `rate`;
 * null for our own files.
 */
export function sampleBound(input: MediaInput, rate: number): string | null {
  if (typeof input === "string") return null;
  return `atrim=end_sample=${Math.ceil((input.durationSec + DECODE_MARGIN_SEC) * rate)}`;
}
