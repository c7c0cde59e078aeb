import { open, readFile, rm } from "node:fs/promises";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";

/**
 * The audio plumbing of speech synthesis: reading a WAV's duration from its header (every engine
 * writes RIFF/WAVE: espeak-ng, Festival's text2wave, rubberband through libsndfile, ffmpeg), and
 * decoding any audio ffmpeg reads into mono float samples for analysis.
 */

const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Bytes of sample data (the `data` chunk, clipped to the file when a streaming writer left its size unset). */
  dataBytes: number;
  durationSec: number;
}

/** A time range in seconds (source time of the file given). */
export interface TimeRange {
  start: number;
  end: number;
}

/**
 * The header of a RIFF/WAVE file. Writers that stream to a pipe leave the sizes at 0 or
 * 0xFFFFFFFF; then the data runs to the end of the file, which is what is counted.
 */
export async function wavInfo(path: string): Promise<WavInfo> {
  const fh = await open(path, "r");
  try {
    const size = (await fh.stat()).size;
    const head = Buffer.alloc(Math.min(size, 4096));
    await fh.read(head, 0, head.length, 0);
    if (head.toString("ascii", 0, 4) !== "RIFF" || head.toString("ascii", 8, 12) !== "WAVE") throw new Error(`${path} is not a WAV file`);
    let at = 12;
    let fmt: { channels: number; sampleRate: number; bitsPerSample: number } | null = null;
    while (at + 8 <= head.length) {
      const id = head.toString("ascii", at, at + 4);
      const len = head.readUInt32LE(at + 4);
      if (id === "fmt ") {
        fmt = { channels: head.readUInt16LE(at + 10), sampleRate: head.readUInt32LE(at + 12), bitsPerSample: head.readUInt16LE(at + 22) };
      } else if (id === "data") {
        if (!fmt) break;
        const available = size - (at + 8);
        const dataBytes = len === 0 || len > available ? available : len;
        const bytesPerSecond = fmt.sampleRate * fmt.channels * (fmt.bitsPerSample / 8);
        return { ...fmt, dataBytes, durationSec: bytesPerSecond > 0 ? dataBytes / bytesPerSecond : 0 };
      }
      at += 8 + len + (len % 2);
    }
    throw new Error(`${path} has no fmt/data chunks in its first 4 KiB`);
  } finally {
    await fh.close();
  }
}

export interface DecodeOptions {
  sampleRate: number;
  /** Only these ranges, concatenated in order (source time). */
  ranges?: readonly TimeRange[];
  /** Stop after this many seconds of decoded audio. */
  maxSec?: number;
  signal: AbortSignal;
  /** Where the raw samples are written on their way in (deleted afterwards). */
  scratchPath: string;
}

/**
 * Mono float samples of a file at `sampleRate`. The selection runs inside ffmpeg (`aselect`), so a
 * long recording restricted to a speaker's turns is never decoded whole into memory.
 */
export async function decodeMono(input: string, opts: DecodeOptions): Promise<Float32Array> {
  const filters: string[] = [];
  const ranges = (opts.ranges ?? []).filter((r) => r.end > r.start);
  if (ranges.length > 0) {
    const expr = ranges.map((r) => `between(t\\,${r.start.toFixed(3)}\\,${r.end.toFixed(3)})`).join("+");
    filters.push(`aselect='${expr}'`, "asetpts=N/SR/TB");
  }
  filters.push(`aformat=sample_fmts=flt:channel_layouts=mono:sample_rates=${opts.sampleRate}`);
  try {
    await runToolOk(
      FFMPEG,
      [
        ...FF_BASE,
        ...fileInput(input),
        "-vn",
        "-af",
        filters.join(","),
        ...(opts.maxSec !== undefined ? ["-t", opts.maxSec.toFixed(3)] : []),
        "-f",
        "f32le",
        opts.scratchPath,
      ],
      { signal: opts.signal },
    );
    const bytes = await readFile(opts.scratchPath);
    // A copy into an aligned buffer: Buffer pools may hand out views at odd offsets.
    return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  } finally {
    await rm(opts.scratchPath, { force: true });
  }
}

/** Writes mono PCM (16-bit) WAV bytes; for reference clips and test fixtures. */
export function encodeWav(samples: Float32Array, sampleRate: number): Buffer {
  const out = Buffer.alloc(44 + samples.length * 2);
  out.write("RIFF", 0, "ascii");
  out.writeUInt32LE(36 + samples.length * 2, 4);
  out.write("WAVEfmt ", 8, "ascii");
  out.writeUInt32LE(16, 16);
  out.writeUInt16LE(1, 20);
  out.writeUInt16LE(1, 22);
  out.writeUInt32LE(sampleRate, 24);
  out.writeUInt32LE(sampleRate * 2, 28);
  out.writeUInt16LE(2, 32);
  out.writeUInt16LE(16, 34);
  out.write("data", 36, "ascii");
  out.writeUInt32LE(samples.length * 2, 40);
  for (let i = 0; i < samples.length; i++) out.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), 44 + i * 2);
  return out;
}
