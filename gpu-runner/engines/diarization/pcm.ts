import { readFile } from "node:fs/promises";
import { StepFailure } from "../../../contracts/step-failure";

/**
 * Reads the pipeline's prepared audio (16 kHz mono signed 16-bit PCM WAV) into memory as the
 * samples themselves: an hour is 115 MB, kept as Int16 and scaled per frame by whoever reads it.
 * Anything else is a pipeline bug, not a transient failure.
 */
export const SAMPLE_RATE = 16_000;

export interface Pcm16 {
  samples: Int16Array;
  sampleRate: number;
}

export async function readPcm16Wav(path: string): Promise<Pcm16> {
  const buf = await readFile(path);
  const bad = (why: string) =>
    new StepFailure("processing_failed", `diarization input ${path} is not a 16 kHz mono 16-bit WAV: ${why}`, false);
  if (buf.length < 12 || buf.toString("ascii", 0, 4) !== "RIFF" || buf.toString("ascii", 8, 12) !== "WAVE")
    throw bad("no RIFF/WAVE header");
  let fmt: { format: number; channels: number; rate: number; bits: number } | undefined;
  // Chunks are walked rather than assuming a 44-byte header: ffmpeg writes LIST chunks before data.
  for (let at = 12; at + 8 <= buf.length;) {
    const id = buf.toString("ascii", at, at + 4);
    const size = buf.readUInt32LE(at + 4);
    const body = at + 8;
    if (id === "fmt ") {
      fmt = {
        format: buf.readUInt16LE(body),
        channels: buf.readUInt16LE(body + 2),
        rate: buf.readUInt32LE(body + 4),
        bits: buf.readUInt16LE(body + 14),
      };
    } else if (id === "data") {
      if (!fmt) throw bad("data before fmt");
      // WAVE_FORMAT_EXTENSIBLE (0xfffe) carries PCM too.
      if ((fmt.format !== 1 && fmt.format !== 0xfffe) || fmt.channels !== 1 || fmt.bits !== 16 || fmt.rate !== SAMPLE_RATE)
        throw bad(`format ${fmt.format}, ${fmt.channels} channel(s), ${fmt.rate} Hz, ${fmt.bits} bits`);
      // A streamed WAV may declare size 0 or 0xffffffff: the data then runs to the end of the file.
      const end = size === 0 || size === 0xffffffff || body + size > buf.length ? buf.length : body + size;
      const count = Math.floor((end - body) / 2);
      const samples = new Int16Array(count);
      for (let i = 0; i < count; i++) samples[i] = buf.readInt16LE(body + 2 * i);
      return { samples, sampleRate: fmt.rate };
    }
    at = body + size + (size % 2);
  }
  throw bad("no data chunk");
}
