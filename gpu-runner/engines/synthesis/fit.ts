import { randomUUID } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import path from "node:path";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";
import { wavInfo } from "./audio";
import type { Synthesized } from "./interface";

/**
 * Fits one synthesised segment into its slot (the time from the source segment's start to the next
 * segment's start, or to the end of the audio: never past the next segment). In order:
 *
 *  1. Synthesise at the voice's own rate and cut the silence the engine leaves at both ends
 *     (Festival's HTS voices lead with ~0.2 s), so the speech starts at the slot's start.
 *  2. Speech that fits is kept as it is: never stretched slower. The mixer pads the rest of the slot
 *     with silence; slowed synthetic speech drags and gains nothing, the start time is what matters.
 *  3. Longer speech is time-compressed by rubberband (R3 engine, pitch kept) to the slot, at most
 *     MAX_COMPRESSION (1.25×, within which compressed speech stays natural; rubberband's own
 *     artefacts stay inaudible on speech up to about there).
 *  4. Speech that would need more is synthesised again at a faster speaking rate (the engine's
 *     own rate control, up to MAX_RATE 1.3× the voice's rate), then compressed within the bound
 *     again: flagged `rate_raised`.
 *  5. What still does not fit is cut at the slot's end with a 50 ms fade-out: flagged `trimmed`.
 *
 * So nothing overruns its slot by more than rounding, and every departure from the voice's own
 * delivery is on the record.
 */
export const MAX_COMPRESSION = 1.25;
export const MAX_RATE = 1.3;
export const TRIM_FADE_SEC = 0.05;
/** Level under which the ends of synthetic speech count as silence. */
const EDGE_SILENCE_DB = -50;

export type FitFlag = "rate_raised" | "trimmed";

export interface FitRequest {
  /** Synthesises the segment at a rate multiplier (1 = the voice's own) into `outPath`. */
  synthesize(rate: number, outPath: string): Promise<Synthesized>;
  slotSec: number;
  /** The fitted WAV. */
  outPath: string;
  signal: AbortSignal;
  /** Tools (default `rubberband`, `ffmpeg` or FFMPEG_PATH). */
  rubberband?: string;
  ffmpeg?: string;
}

export interface FitResult {
  path: string;
  /** Length of the fitted speech (never more than the slot, give or take a sample). */
  speechDurationSec: number;
  /** Length of the speech as the voice first said it (edges trimmed). */
  naturalDurationSec: number;
  /** Time ratio applied by rubberband (1: none; 0.8: compressed to 80% of its length). */
  stretch: number;
  /** The speaking-rate multiplier the kept synthesis was made at. */
  rate: number;
  flags: FitFlag[];
}

export async function fitToSlot(req: FitRequest): Promise<FitResult> {
  if (!(req.slotSec > 0)) throw new RangeError(`slot must be longer than 0 s, got ${req.slotSec}`);
  const tools = { rubberband: req.rubberband ?? "rubberband", ffmpeg: req.ffmpeg ?? FFMPEG };
  const scratch = (tag: string) => path.join(path.dirname(req.outPath), `.fit-${randomUUID()}-${tag}.wav`);
  const flags: FitFlag[] = [];
  const made: string[] = [];

  const speak = async (rate: number): Promise<{ file: string; sec: number }> => {
    const raw = scratch(`raw-${rate}`);
    const trimmed = scratch(`trim-${rate}`);
    made.push(raw, trimmed);
    await req.synthesize(rate, raw);
    await trimEdges(tools.ffmpeg, raw, trimmed, req.signal);
    return { file: trimmed, sec: (await wavInfo(trimmed)).durationSec };
  };

  try {
    const natural = await speak(1);
    let take = natural;
    let rate = 1;
    if (take.sec > req.slotSec * MAX_COMPRESSION) {
      // Rate changes duration roughly in proportion (not exactly: pauses scale less); aim 5% inside the compression bound.
      rate = Math.min(MAX_RATE, (1.05 * take.sec) / (req.slotSec * MAX_COMPRESSION));
      take = await speak(rate);
      if (take.sec > req.slotSec * MAX_COMPRESSION && rate < MAX_RATE) {
        rate = MAX_RATE;
        take = await speak(rate);
      }
      flags.push("rate_raised");
    }
    let stretch = 1;
    let current = take.file;
    if (take.sec > req.slotSec) {
      const target = Math.max(req.slotSec, take.sec / MAX_COMPRESSION);
      const compressed = scratch("rb");
      made.push(compressed);
      await runToolOk(tools.rubberband, ["-q", "-3", "-D", target.toFixed(4), current, compressed], { signal: req.signal });
      current = compressed;
      stretch = round(target / take.sec, 4);
    }
    let sec = (await wavInfo(current)).durationSec;
    if (sec > req.slotSec + 0.001) {
      const cut = scratch("cut");
      made.push(cut);
      await trimToSlot(tools.ffmpeg, current, cut, req.slotSec, req.signal);
      current = cut;
      sec = (await wavInfo(current)).durationSec;
      flags.push("trimmed");
    }
    await rename(current, req.outPath);
    return {
      path: req.outPath,
      speechDurationSec: round(sec, 3),
      naturalDurationSec: round(natural.sec, 3),
      stretch,
      rate: round(rate, 3),
      flags,
    };
  } finally {
    await Promise.all(made.map((f) => rm(f, { force: true })));
  }
}

/** One ffmpeg audio filter pass into 16-bit PCM WAV (what every fitted segment is). */
async function filterToPcm(ffmpeg: string, input: string, output: string, filter: string, signal: AbortSignal): Promise<void> {
  await runToolOk(
    ffmpeg,
    ["-hide_banner", "-nostdin", "-y", "-loglevel", "error", ...fileInput(input), "-af", filter, "-c:a", "pcm_s16le", output],
    {
      signal,
    },
  );
}

/** Cuts silence at both ends (reversing to reach the tail), keeping 10 ms so onsets are not clipped. */
async function trimEdges(ffmpeg: string, input: string, output: string, signal: AbortSignal): Promise<void> {
  const edge = `silenceremove=start_periods=1:start_threshold=${EDGE_SILENCE_DB}dB:start_silence=0.01`;
  await filterToPcm(ffmpeg, input, output, `${edge},areverse,${edge},areverse`, signal);
}

async function trimToSlot(ffmpeg: string, input: string, output: string, slotSec: number, signal: AbortSignal): Promise<void> {
  const fadeStart = Math.max(0, slotSec - TRIM_FADE_SEC);
  await filterToPcm(
    ffmpeg,
    input,
    output,
    `atrim=end=${slotSec.toFixed(4)},afade=t=out:st=${fadeStart.toFixed(4)}:d=${TRIM_FADE_SEC}`,
    signal,
  );
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
