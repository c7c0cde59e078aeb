import { open, stat } from "node:fs/promises";
import { decodeMono } from "../../engines/synthesis/audio";
import { FFMPEG, FFPROBE, fileInput, runTool, runToolOk } from "../../media/spawn";
import { MIX_RATE, readPcmMono, type PlacedSpeech } from "./audio";

/**
 * A regenerated dub's speech track: the previous dub's track, decoded to raw 16-bit PCM, with the
 * speech of every dropped segment silenced and every newly spoken segment written at its start. The
 * kept segments' samples are never rewritten, so they come out of the new FLAC exactly as they went
 * into the old one (FLAC is lossless). Edited in place on disk: memory stays flat whatever the length.
 */

const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];
const BYTES = 2;

/** A previous speech track as this dub can splice it, or why it cannot. */
export type PreviousTrack = { ok: true; samples: number } | { ok: false; reason: string };

/**
 * The previous `speech` artifact decoded to raw PCM at `pcmOut`, if it is what a dub writes: 48 kHz
 * mono, exactly `durationSec` of the source long (the same measured source). Anything else (another
 * rate, another length: the source changed) cannot be spliced sample-accurately.
 */
export async function decodePreviousTrack(flac: string, durationSec: number, pcmOut: string, signal: AbortSignal): Promise<PreviousTrack> {
  const info = await audioStreamInfo(flac, signal);
  if (!info) return { ok: false, reason: "the previous speech track is not readable audio" };
  if (info.sampleRate !== MIX_RATE || info.channels !== 1)
    return { ok: false, reason: `the previous speech track is ${info.sampleRate} Hz, ${info.channels} channels, not ${MIX_RATE} Hz mono` };
  await runToolOk(FFMPEG, [...FF_BASE, ...fileInput(flac), "-f", "s16le", "-c:a", "pcm_s16le", pcmOut], { signal });
  const samples = (await stat(pcmOut)).size / BYTES;
  const expected = Math.round(durationSec * MIX_RATE);
  if (samples !== expected)
    return { ok: false, reason: `the previous speech track has ${samples} samples, the source ${expected}: the source changed` };
  return { ok: true, samples };
}

/** The first audio stream's sample rate, channels and duration (ffprobe); null when there is none. */
export async function audioStreamInfo(
  path: string,
  signal: AbortSignal,
): Promise<{ sampleRate: number; channels: number; durationSec: number } | null> {
  const res = await runTool(
    FFPROBE,
    [
      "-v",
      "error",
      "-select_streams",
      "a:0",
      "-show_entries",
      "stream=sample_rate,channels:format=duration",
      "-of",
      "json",
      ...fileInput(path),
    ],
    { signal, collectStdout: true },
  );
  if (res.code !== 0) return null;
  const json = JSON.parse(res.stdout || "{}") as {
    streams?: Array<{ sample_rate?: string; channels?: number }>;
    format?: { duration?: string };
  };
  const s = json.streams?.[0];
  if (!s) return null;
  return { sampleRate: Number(s.sample_rate), channels: s.channels ?? 0, durationSec: Number(json.format?.duration) };
}

/** Sample positions of kept speech (their starts), for writes that must stop before them. */
function nextKeptAfter(keptStarts: readonly number[], at: number, total: number): number {
  for (const k of keptStarts) if (k > at) return Math.min(k, total);
  return total;
}

/**
 * Splices `pcm` (the previous track, `total` samples) in place and writes it to `out` as FLAC:
 * from each dropped segment's speech start up to the next kept segment's start, silence (the
 * dropped speech ends inside its slot, and no kept speech lies between); then each placed segment
 * at its start, cut short before the next kept speech should it reach it.
 */
export async function spliceSpeechTrack(
  pcm: string,
  total: number,
  kept: readonly { speechStart: number }[],
  droppedStarts: readonly number[],
  placed: readonly PlacedSpeech[],
  out: string,
  scratch: string,
  signal: AbortSignal,
): Promise<void> {
  const keptStarts = kept.map((k) => Math.round(k.speechStart * MIX_RATE)).sort((a, b) => a - b);
  const fh = await open(pcm, "r+");
  try {
    const zeros = Buffer.alloc(MIX_RATE * BYTES);
    for (const start of droppedStarts) {
      const from = Math.round(start * MIX_RATE);
      const to = nextKeptAfter(keptStarts, from, total);
      for (let at = from; at < to; at += MIX_RATE) {
        signal.throwIfAborted();
        await fh.write(zeros, 0, Math.min(MIX_RATE, to - at) * BYTES, at * BYTES);
      }
    }
    for (const p of placed) {
      const at = Math.round(p.start * MIX_RATE);
      if (at >= total) continue;
      const samples =
        (await readPcmMono(p.path, MIX_RATE)) ?? (await decodeMono(p.path, { sampleRate: MIX_RATE, signal, scratchPath: scratch }));
      const n = Math.max(0, Math.min(samples.length, nextKeptAfter(keptStarts, at, total) - at));
      const buf = Buffer.alloc(n * BYTES);
      for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), i * BYTES);
      await fh.write(buf, 0, buf.length, at * BYTES);
    }
  } finally {
    await fh.close();
  }
  await runToolOk(FFMPEG, [...FF_BASE, "-f", "s16le", "-ar", String(MIX_RATE), "-ac", "1", ...fileInput(pcm), "-c:a", "flac", out], {
    signal,
  });
}
