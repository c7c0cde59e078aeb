import { rm, writeFile } from "node:fs/promises";
import { LAYOUT_SIZE, type ClipLayout, type FillStyle } from "../../../contracts/clips";
import { sourceInput, type AcceptedSource } from "../../media/source";
import { redactionFilter, type AudioSpan, type RedactedAudioMode } from "../../media/redacted-audio";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";
import { LOUDNESS, type LoudnessMeasure } from "./media";
import { cropExpression, type CropPiece } from "./reframe";

/**
 * Renders one clip with ffmpeg: the layout's picture (a speaker-following crop, a letterbox on a
 * fill, or a fit), burned-in captions (libass, Noto Sans), loudness normalised to −14 LUFS in the
 * second pass of loudnorm, H.264 High yuv420p at a constant frame rate and AAC, `+faststart` so
 * it plays before it has fully downloaded.
 *
 * The audio is normalised in a pass of its own, before the picture's: loudnorm holds back 3 s of
 * audio before its first output, and while it does, ffmpeg queues the decoded pictures that go with
 * it (about 80 MiB at 720p). Alone, that pass takes a fraction of a second and the render's
 * memory drops by that much, which is what lets two renders run at once within the runner's memory.
 *
 * Captions find their fonts through fontconfig, which knows Debian's Noto fonts and falls back per
 * glyph for other scripts. Pointing libass at the Noto folder as well (`fontsdir`) drew the same
 * pictures but loaded all of its 268 files into every render (+44 MiB).
 */

export interface RenderJob {
  source: AcceptedSource;
  output: string;
  start: number;
  durationSec: number;
  layout: ClipLayout;
  fillStyle: FillStyle | null;
  /** Source picture size. */
  srcW: number;
  srcH: number;
  /** For crop layouts: the crop's left edge over clip time (crop spans the full height, or is centred vertically). */
  crop: CropPiece[] | null;
  cropW: number;
  cropH: number;
  /** An .ass file to burn in, or null. */
  assPath: string | null;
  /** The first pass of two-pass loudnorm over the clip (null: a single pass). */
  loudness: LoudnessMeasure | null;
  hasAudio: boolean;
  /** Redacted words' spans in the clip's own timeline (0 at `start`), silenced or toned in its audio; null: none. */
  redaction?: { spans: AudioSpan[]; mode: RedactedAudioMode } | null;
  brandColor: string;
  /** The brand logo for the `branding` fill: a PNG already scaled to fit the band above the picture. */
  logo?: { path: string; width: number; height: number } | null;
  fps: number;
  preset: string;
  crf: number;
  /** A poster JPEG of the clip's frame at `at` seconds, taken from the picture on its way to the encoder (no second decode). */
  poster?: { output: string; at: number } | null;
  signal: AbortSignal;
}

const even = (x: number) => Math.max(2, Math.floor(x / 2) * 2);
const filterPath = (p: string) => p.replace(/([\\':,[\];])/g, "\\$1");

/** Crop size for a layout whose output is W×H: the largest window of that aspect inside the source. */
export function cropSize(srcW: number, srcH: number, layout: ClipLayout): { cropW: number; cropH: number } {
  const { width, height } = LAYOUT_SIZE[layout];
  const aspect = width / height;
  if (srcW / srcH > aspect) return { cropW: even(srcH * aspect), cropH: even(srcH) };
  return { cropW: even(srcW), cropH: even(srcW / aspect) };
}

/** Where the letterboxed picture of `horizontal_in_vertical` sits: its height and top edge. */
export function letterbox(srcW: number, srcH: number): { h: number; y: number } {
  const { width, height } = LAYOUT_SIZE.horizontal_in_vertical;
  const h = even((width * srcH) / srcW);
  // A little above the middle, leaving the lower part for captions.
  return { h, y: even(Math.max(0, (height - h) / 2 - height * 0.06)) };
}

export function videoFilter(job: RenderJob): string {
  const { width: W, height: H } = LAYOUT_SIZE[job.layout];
  const fps = `fps=${job.fps}`;
  const captions = job.assPath ? `,ass=filename=${filterPath(job.assPath)}` : "";
  const frame = job.poster ? Math.max(0, Math.round(job.poster.at * job.fps)) : 0;
  const posterBranch = job.poster ? `,split=2[v][pv];[pv]trim=start_frame=${frame}:end_frame=${frame + 1}[poster]` : "[v]";
  const tail = `setsar=1,format=yuv420p${captions}${posterBranch}`;
  switch (job.layout) {
    case "vertical_9_16":
    case "square_1_1": {
      const x = job.crop ? cropExpression(job.crop) : String(Math.round((job.srcW - job.cropW) / 2));
      const y = Math.round((job.srcH - job.cropH) / 2);
      return `[0:v]${fps},crop=w=${job.cropW}:h=${job.cropH}:x='${x}':y=${y},scale=${W}:${H}:flags=lanczos,${tail}`;
    }
    case "horizontal_16_9":
      return `[0:v]${fps},scale=${W}:${H}:force_original_aspect_ratio=decrease:flags=lanczos,pad=${W}:${H}:(ow-iw)/2:(oh-ih)/2:color=black,${tail}`;
    case "horizontal_in_vertical": {
      const box = letterbox(job.srcW, job.srcH);
      const fg = `scale=${W}:${box.h}:flags=lanczos`;
      const fill = job.fillStyle ?? "black";
      if (fill === "blur")
        return (
          `[0:v]${fps},split[a][b];` +
          `[a]scale=${W / 4}:${H / 4}:force_original_aspect_ratio=increase,crop=${W / 4}:${H / 4},boxblur=10:2,scale=${W}:${H}[bg];` +
          `[b]${fg}[fg];[bg][fg]overlay=0:${box.y},${tail}`
        );
      const colour = fill === "branding" ? job.brandColor.replace("#", "0x") : "black";
      const picture = `color=c=${colour}:s=${W}x${H}:r=${job.fps}[bg];[0:v]${fps},${fg}[fg];[bg][fg]overlay=0:${box.y}:shortest=1`;
      if (fill !== "branding" || !job.logo) return `${picture},${tail}`;
      // The logo is centred in the band above the picture; a one-frame input is repeated by overlay.
      const ly = Math.max(0, Math.round((box.y - job.logo.height) / 2));
      return `${picture}[base];[1:v]format=rgba[logo];[base][logo]overlay=x=(W-w)/2:y=${ly},${tail}`;
    }
  }
}

/** The band above the `horizontal_in_vertical` picture a logo may fill: most of its height, half the width. */
export function logoBox(srcW: number, srcH: number): { maxWidth: number; maxHeight: number } {
  const { width } = LAYOUT_SIZE.horizontal_in_vertical;
  return { maxWidth: Math.round(width * 0.5), maxHeight: Math.max(48, Math.round(letterbox(srcW, srcH).y * 0.6)) };
}

/**
 * Loudness, then the redacted spans: after loudnorm so a silenced span stays at digital silence and
 * the tone keeps its own level whatever gain the clip gets.
 */
export function audioFilter(m: LoudnessMeasure | null, redaction?: RenderJob["redaction"]): string {
  const base = `loudnorm=I=${LOUDNESS.I}:TP=${LOUDNESS.TP}:LRA=${LOUDNESS.LRA}`;
  const measured = m
    ? `:measured_I=${m.input_i}:measured_TP=${m.input_tp}:measured_LRA=${m.input_lra}:measured_thresh=${m.input_thresh}:offset=${m.target_offset}:linear=true`
    : "";
  const redact = redaction ? redactionFilter(redaction.spans, { mode: redaction.mode, sampleRate: 48000 }) : null;
  // The layout is fixed before the redaction: ffmpeg 5.1 finds none for a filter after aresample
  // when the source is mono and the output stereo (`-ac 2`), and fails the render.
  const after = redact ? `,aformat=channel_layouts=stereo,${redact}` : "";
  // loudnorm works at 192 kHz internally; resample back for AAC.
  return `${base}${measured},aresample=48000${after}`;
}

/** The clip's audio, loudness-normalised, as 48 kHz stereo PCM: exactly the samples the picture's `-ss`/`-t` reads. */
export function audioArgs(job: RenderJob, output: string): string[] {
  return [
    ...["-hide_banner", "-nostdin", "-y", "-loglevel", "error"],
    ...sourceInput(job.source, { seek: job.start, duration: job.durationSec }),
    ...["-map", "0:a:0", "-af", audioFilter(job.loudness, job.redaction), "-c:a", "pcm_s16le", "-ar", "48000", "-ac", "2", output],
  ];
}

/** The picture's encode; `audio` is the normalised audio to mux (null: none). */
export function renderArgs(job: RenderJob, graphFile: string, audio: string | null): string[] {
  const logo = job.fillStyle === "branding" && job.logo ? fileInput(job.logo.path) : [];
  // The audio file is the last input: the logo, when there is one, is input 1 for the graph.
  const audioInput = logo.length > 0 ? 2 : 1;
  return [
    "-hide_banner",
    "-nostdin",
    "-y",
    "-loglevel",
    "error",
    ...sourceInput(job.source, { seek: job.start, duration: job.durationSec }),
    ...logo,
    ...(audio ? fileInput(audio) : []),
    // The graph can be long (a crop path with many pieces): read it from a file.
    "-filter_complex_script",
    graphFile,
    "-map",
    "[v]",
    ...(audio ? ["-map", `${audioInput}:a:0`] : []),
    "-c:v",
    "libx264",
    "-profile:v",
    "high",
    "-pix_fmt",
    "yuv420p",
    "-preset",
    job.preset,
    "-crf",
    String(job.crf),
    "-r",
    String(job.fps),
    "-vsync",
    "cfr",
    ...(audio ? ["-c:a", "aac", "-b:a", "160k", "-ar", "48000", "-ac", "2"] : []),
    "-t",
    job.durationSec.toFixed(3),
    "-movflags",
    "+faststart",
    job.output,
    ...(job.poster ? ["-map", "[poster]", "-frames:v", "1", "-q:v", "3", "-update", "1", job.poster.output] : []),
  ];
}

export async function renderClip(job: RenderJob): Promise<void> {
  const graphFile = `${job.output}.filtergraph`;
  await writeFile(graphFile, videoFilter(job));
  const audio = job.hasAudio ? `${job.output}.audio.wav` : null;
  try {
    if (audio) await runToolOk(FFMPEG, audioArgs(job, audio), { signal: job.signal });
    await runToolOk(FFMPEG, renderArgs(job, graphFile, audio), { signal: job.signal });
  } finally {
    if (audio) await rm(audio, { force: true });
  }
}

/** A poster frame from a rendered clip, as a JPEG of the clip's own size (renderClip makes one itself when asked). */
export async function renderPoster(clip: string, at: number, output: string, signal: AbortSignal): Promise<void> {
  await runToolOk(
    FFMPEG,
    [
      "-hide_banner",
      "-nostdin",
      "-y",
      "-loglevel",
      "error",
      "-ss",
      at.toFixed(3),
      ...fileInput(clip),
      "-frames:v",
      "1",
      "-q:v",
      "3",
      output,
    ],
    { signal },
  );
}
