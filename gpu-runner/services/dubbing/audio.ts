import { createWriteStream } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import { once } from "node:events";
import { decodeMono, wavInfo } from "../../engines/synthesis/audio";
import { redactionFilter, type AudioSpan, type RedactedAudioMode } from "../../media/redacted-audio";
import { sampleBound, sourceInput, type AcceptedSource } from "../../media/source";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";
import { metadataArgs } from "./provenance";

/**
 * The dubbing's audio, file to file with ffmpeg (memory stays flat whatever the media length):
 *
 * - `extractTracks`: the source's sound as the raw artifact (48 kHz, its own channels up to stereo,
 *   FLAC) and a 16 kHz mono WAV for diarization and voice measurement, a redacted transcript's
 *   spans silenced in both.
 * - (separation into background and vocals is an engine: ../../engines/separation/)
 * - `writeSpeechTrack`: the fitted segments placed at their starts on one 48 kHz mono timeline,
 *   streamed segment by segment.
 * - `mix`: background plus speech, loudness-normalised (EBU R128 measured, one gain, a limiter),
 *   padded or cut to exactly the source's duration.
 * - `render`: the original picture stream-copied with the mix as its only audio.
 */

const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];
export const MIX_RATE = 48_000;

/** A redacted transcript's spans (seconds of the source) and what replaces their audio. */
export interface AudioRedaction {
  spans: readonly AudioSpan[];
  mode: RedactedAudioMode;
}

/**
 * Both tracks with the redacted spans already silenced (or toned): every later stage (separation,
 * diarization, voices, the mix) and every artifact reads these, so none carries a redacted word.
 */
export async function extractTracks(
  source: AcceptedSource,
  rawOut: string,
  analysisOut: string,
  signal: AbortSignal,
  redaction: AudioRedaction | null = null,
): Promise<void> {
  const redact = (rate: number) => {
    const f = redaction ? redactionFilter(redaction.spans, { mode: redaction.mode, sampleRate: rate }) : null;
    return f ? `,${f}` : "";
  };
  await runToolOk(
    FFMPEG,
    [
      ...FF_BASE,
      ...sourceInput(source),
      "-map",
      "0:a:0",
      "-vn",
      "-af",
      `aformat=sample_rates=${MIX_RATE}:channel_layouts=stereo|mono,${sampleBound(source, MIX_RATE)}${redact(MIX_RATE)}`,
      "-c:a",
      "flac",
      rawOut,
      ...analysisOutput(source, analysisOut, redact(16000)),
    ],
    { signal },
  );
}

/** ffmpeg's output arguments for the 16 kHz mono s16 analysis copy, with any filter after the bound (`,…`). */
const analysisOutput = (source: AcceptedSource, out: string, filters = ""): string[] => [
  "-map",
  "0:a:0",
  "-vn",
  "-af",
  `aformat=sample_fmts=s16:channel_layouts=mono:sample_rates=16000,${sampleBound(source, 16000)}${filters}`,
  "-c:a",
  "pcm_s16le",
  out,
];

/** The 16 kHz mono analysis copy alone: a regeneration that reuses the raw artifact may still need it to make a voice. */
export async function extractAnalysis(source: AcceptedSource, analysisOut: string, signal: AbortSignal): Promise<void> {
  await runToolOk(FFMPEG, [...FF_BASE, ...sourceInput(source), ...analysisOutput(source, analysisOut)], { signal });
}

export interface PlacedSpeech {
  path: string;
  start: number;
}

/**
 * The translated speech as one track: silence, then each fitted segment at its start, in time
 * order (fitting guarantees they do not overlap; a segment that would, starts where the last
 * ended). Raw 16-bit PCM streamed to disk, wrapped by ffmpeg into FLAC. `durationSec` is the
 * source's measured duration (media/source.ts), never what its container declares: the track is
 * exactly that long, whatever the segments' times say (at most runner.maxDurationSec: 330 MiB of PCM).
 */
export async function writeSpeechTrack(
  placed: readonly PlacedSpeech[],
  durationSec: number,
  rawPath: string,
  out: string,
  scratch: string,
  signal: AbortSignal,
) {
  const stream = createWriteStream(rawPath);
  let written = 0;
  const write = async (buf: Buffer) => {
    if (!stream.write(buf)) await once(stream, "drain");
  };
  const silence = async (samples: number) => {
    const chunk = Buffer.alloc(Math.min(samples, MIX_RATE) * 2);
    for (let left = samples; left > 0; left -= chunk.length / 2) {
      signal.throwIfAborted();
      await write(left >= chunk.length / 2 ? chunk : chunk.subarray(0, left * 2));
    }
    written += samples;
  };
  const total = Math.round(durationSec * MIX_RATE);
  for (const p of [...placed].sort((a, b) => a.start - b.start)) {
    // A segment timed past the source's end (a transcript of a longer file) adds nothing.
    const at = Math.round(p.start * MIX_RATE);
    if (at >= total) break;
    if (at > written) await silence(at - written);
    const samples =
      (await readPcmMono(p.path, MIX_RATE)) ?? (await decodeMono(p.path, { sampleRate: MIX_RATE, signal, scratchPath: scratch }));
    const room = Math.max(0, total - written);
    const n = Math.min(samples.length, room);
    const pcm = Buffer.alloc(n * 2);
    for (let i = 0; i < n; i++) pcm.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), i * 2);
    await write(pcm);
    written += n;
  }
  if (total > written) await silence(total - written);
  stream.end();
  await once(stream, "finish");
  await runToolOk(FFMPEG, [...FF_BASE, "-f", "s16le", "-ar", String(MIX_RATE), "-ac", "1", ...fileInput(rawPath), "-c:a", "flac", out], {
    signal,
  });
}

/**
 * A 16-bit mono PCM WAV (what fitting writes) read and resampled to `rate` in process: linear
 * interpolation, enough for speech going up to 48 kHz, and no ffmpeg start per segment (a
 * transcript has hundreds). Null for any other layout: the caller decodes it with ffmpeg.
 */
export async function readPcmMono(file: string, rate: number): Promise<Float32Array | null> {
  const info = await wavInfo(file).catch(() => null);
  if (!info || info.channels !== 1 || info.bitsPerSample !== 16) return null;
  const bytes = await readFile(file);
  // The data chunk's start: walk the chunks after the RIFF header (fmt, LIST, … come first).
  let dataAt = 12;
  while (dataAt + 8 <= bytes.length && bytes.toString("ascii", dataAt, dataAt + 4) !== "data") {
    const len = bytes.readUInt32LE(dataAt + 4);
    dataAt += 8 + len + (len % 2);
  }
  dataAt += 8;
  const n = Math.floor(info.dataBytes / 2);
  const src = new Float32Array(n);
  for (let i = 0; i < n; i++) src[i] = bytes.readInt16LE(dataAt + i * 2) / 32768;
  if (info.sampleRate === rate) return src;
  const out = new Float32Array(Math.floor((n * rate) / info.sampleRate));
  const step = info.sampleRate / rate;
  for (let i = 0; i < out.length; i++) {
    const x = i * step;
    const j = Math.floor(x);
    const f = x - j;
    out[i] = (src[j] ?? 0) * (1 - f) + (src[j + 1] ?? src[j] ?? 0) * f;
  }
  return out;
}

/**
 * The mix's encoding. Without perceptual noise substitution: its noise comes from a generator whose
 * state the decoder carries from frame to frame, so a mix with frames spliced in (mix-splice.ts)
 * would decode differently all the way to its end; at 192 kb/s it saves nothing audible.
 */
export const MIX_AAC = ["-c:a", "aac", "-aac_pns", "0", "-b:a", "192k"] as const;

export interface Loudness {
  integratedLufs: number | null;
  truePeakDbtp: number | null;
}

/** A mix's loudness and the gain that brought it there (a regeneration applies the same gain: mix-splice.ts). */
export type MixLoudness = Loudness & { gainDb: number };

/**
 * Background and speech summed (speech at unity, background as ducked), brought to `lufs`
 * integrated by one measured gain (EBU R128 through ffmpeg's ebur128, then `volume`) with a limiter
 * keeping peaks under -2 dBFS (about -1.5 dBTP), and cut or padded to the source's exact duration so
 * the dubbed video ends with its picture. Gain-then-limit instead of loudnorm: loudnorm's dynamic
 * mode works at 192 kHz and took most of the dub's time. Returns the mix's measured loudness and the gain.
 */
export async function mix(
  background: string,
  speech: string,
  durationSec: number,
  lufs: number,
  out: string,
  signal: AbortSignal,
): Promise<MixLoudness> {
  const dur = durationSec.toFixed(3);
  const summed = out.replace(/\.[^.]+$/, ".sum.wav");
  const graph = [
    `[1:a]aformat=sample_rates=${MIX_RATE}:channel_layouts=stereo[s]`,
    `[0:a]aformat=sample_rates=${MIX_RATE}:channel_layouts=stereo[b]`,
    `[b][s]amix=inputs=2:duration=longest:normalize=0,apad,atrim=0:${dur}[m]`,
  ].join(";");
  await runToolOk(
    FFMPEG,
    [...FF_BASE, ...fileInput(background), ...fileInput(speech), "-filter_complex", graph, "-map", "[m]", "-c:a", "pcm_f32le", summed],
    { signal },
  );
  const measured = await measureLoudness(summed, signal);
  const gainDb = measured.integratedLufs === null ? 0 : Math.max(-30, Math.min(30, lufs - measured.integratedLufs));
  await runToolOk(
    FFMPEG,
    [
      ...[
        ...FF_BASE,
        ...fileInput(summed),
        "-af",
        `volume=${gainDb.toFixed(2)}dB,alimiter=limit=${Math.pow(10, -2 / 20).toFixed(4)}:level=disabled,atrim=0:${dur}`,
      ],
      ...[...MIX_AAC, out],
    ],
    { signal },
  );
  await rm(summed, { force: true });
  return { ...(await measureLoudness(out, signal)), gainDb: Number(gainDb.toFixed(2)) };
}

export async function measureLoudness(path: string, signal: AbortSignal): Promise<Loudness> {
  let integratedLufs: number | null = null;
  let truePeakDbtp: number | null = null;
  let section = "";
  await runToolOk(FFMPEG, ["-hide_banner", "-nostdin", ...fileInput(path), "-af", "ebur128=peak=true", "-f", "null", "-"], {
    signal,
    onStderrLine: (line) => {
      if (/Integrated loudness:/.test(line)) section = "I";
      else if (/True peak:/.test(line)) section = "TP";
      const i = /^\s*I:\s*(-?[\d.]+) LUFS/.exec(line);
      if (i && section === "I") integratedLufs = Number(i[1]);
      const p = /^\s*Peak:\s*(-?[\d.]+|-inf) dBFS/.exec(line);
      if (p && section === "TP") truePeakDbtp = p[1] === "-inf" ? null : Number(p[1]);
    },
  });
  return { integratedLufs, truePeakDbtp };
}

/** The picture untouched (stream copy), the mix as the only audio. MP4 for MP4/MOV sources, Matroska otherwise. */
export function dubbedExtension(sourceKey: string): "mp4" | "mkv" {
  return /\.(mp4|m4v|mov)$/i.test(sourceKey) ? "mp4" : "mkv";
}

export async function render(
  source: AcceptedSource,
  mixPath: string,
  out: string,
  signal: AbortSignal,
  tags: Readonly<Record<string, string>> = {},
): Promise<void> {
  await runToolOk(
    FFMPEG,
    [
      ...FF_BASE,
      ...sourceInput(source),
      ...fileInput(mixPath),
      "-map",
      "0:v:0",
      "-map",
      "1:a:0",
      "-c:v",
      "copy",
      "-c:a",
      "copy",
      // The provenance note (provenance.ts); an MP4 gets +faststart with it.
      ...metadataArgs(tags, out),
      ...(out.endsWith(".mp4") && Object.keys(tags).length === 0 ? ["-movflags", "+faststart"] : []),
      out,
    ],
    { signal },
  );
}
