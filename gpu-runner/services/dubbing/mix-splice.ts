import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FFMPEG, fileInput, runToolOk } from "../../media/spawn";
import { MIX_AAC, MIX_RATE } from "./audio";

/**
 * A regenerated dub's mix without encoding the whole of it again: the previous mix's AAC frames
 * are kept, and only the frames around each changed stretch are replaced by frames encoded from the
 * new background-plus-speech at the previous dub's gain (so everything outside those stretches is
 * the same signal). Encoding the whole mix is most of a regeneration's cost otherwise (ffmpeg's
 * AAC encoder: about 20 s of CPU for ten minutes of stereo).
 *
 * AAC-LC frames are 1024 samples; ffmpeg's encoder starts with one priming frame, so frame p of an
 * encode decodes (overlapped with frame p-1) to the input's samples [(p-1)·1024, p·1024). A window
 * encoded from sample W0 (a frame boundary) thus lines up frame for frame with the previous mix
 * from frame W0/1024. The window reaches WINDOW_PAD_FRAMES beyond the change on each side and only
 * its middle frames are used, WARM_FRAMES in from each end: the new encoder, limiter and overlap
 * are settled where the splice is, and the frames meet where both encodes saw the same signal.
 */

const FRAME = 1024;
const WINDOW_PAD_FRAMES = 48;
const WARM_FRAMES = 24;
const FF_BASE = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

/** ADTS frames, each self-delimited by its header's 13-bit length. */
export function adtsFrames(bytes: Buffer): Buffer[] {
  const frames: Buffer[] = [];
  let at = 0;
  while (at + 7 <= bytes.length) {
    if (bytes[at] !== 0xff || (bytes[at + 1]! & 0xf0) !== 0xf0) throw new Error(`not an ADTS frame at byte ${at}`);
    const len = ((bytes[at + 3]! & 0x03) << 11) | (bytes[at + 4]! << 3) | ((bytes[at + 5]! & 0xe0) >> 5);
    if (len < 7 || at + len > bytes.length) throw new Error(`truncated ADTS frame at byte ${at}`);
    frames.push(bytes.subarray(at, at + len));
    at += len;
  }
  return frames;
}

/** Sample ranges that changed, widened to whole frames and merged where their windows would overlap. */
export function spliceWindows(changed: ReadonlyArray<readonly [number, number]>, totalSamples: number): Array<[number, number]> {
  const pad = WINDOW_PAD_FRAMES * FRAME;
  const windows = [...changed]
    .sort((a, b) => a[0] - b[0])
    .map(([a, b]): [number, number] => [
      Math.max(0, Math.floor((a - pad) / FRAME) * FRAME),
      Math.min(Math.ceil((b + pad) / FRAME) * FRAME, totalSamples),
    ]);
  const merged: Array<[number, number]> = [];
  for (const w of windows) {
    const last = merged.at(-1);
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push([...w]);
  }
  return merged;
}

export interface MixSplice {
  previousMix: string;
  background: string;
  speech: string;
  /** The previous mix's gain: the unchanged stretches must be the same signal. */
  gainDb: number;
  durationSec: number;
  /** Sample ranges (48 kHz) where background or speech changed. */
  changed: ReadonlyArray<readonly [number, number]>;
  out: string;
  workDir: string;
  signal: AbortSignal;
}

/** The limiter the ordinary mix applies (audio.ts `mix`), after the same gain. */
const limiter = (gainDb: number) => `volume=${gainDb.toFixed(2)}dB,alimiter=limit=${Math.pow(10, -2 / 20).toFixed(4)}:level=disabled`;

export async function spliceMix(m: MixSplice): Promise<void> {
  const total = Math.round(m.durationSec * MIX_RATE);
  const previousAdts = join(m.workDir, "previous-mix.aac");
  await runToolOk(FFMPEG, [...FF_BASE, ...fileInput(m.previousMix), "-map", "0:a:0", "-c:a", "copy", "-f", "adts", previousAdts], {
    signal: m.signal,
  });
  const frames = adtsFrames(await readFile(previousAdts));
  for (const [i, [w0, w1]] of spliceWindows(m.changed, total).entries()) {
    const windowAdts = join(m.workDir, `mix-window-${i}.aac`);
    const trim = `atrim=start_sample=${w0}:end_sample=${w1},asetpts=PTS-STARTPTS`;
    const graph = [
      `[1:a]aformat=sample_rates=${MIX_RATE}:channel_layouts=stereo,${trim}[s]`,
      `[0:a]aformat=sample_rates=${MIX_RATE}:channel_layouts=stereo,${trim}[b]`,
      `[b][s]amix=inputs=2:duration=longest:normalize=0,apad,atrim=end_sample=${w1 - w0},${limiter(m.gainDb)}[m]`,
    ].join(";");
    await runToolOk(
      FFMPEG,
      [
        ...FF_BASE,
        ...fileInput(m.background),
        ...fileInput(m.speech),
        "-filter_complex",
        graph,
        "-map",
        "[m]",
        ...MIX_AAC,
        "-f",
        "adts",
        windowAdts,
      ],
      { signal: m.signal },
    );
    const fresh = adtsFrames(await readFile(windowAdts));
    const base = w0 / FRAME;
    // From the first frame at the start of the media (both encodes begin there alike); to the last at its end.
    const from = w0 === 0 ? 0 : WARM_FRAMES;
    const to = w1 >= total ? fresh.length : fresh.length - WARM_FRAMES;
    if (to <= from) throw new Error(`the window ${w0}–${w1} encoded to ${fresh.length} frames: too few to splice`);
    const replaced = w1 >= total ? frames.length - (base + from) : to - from;
    frames.splice(base + from, replaced, ...fresh.slice(from, to));
  }
  const splicedAdts = join(m.workDir, "mix-spliced.aac");
  await writeFile(splicedAdts, Buffer.concat(frames));
  // ADTS carries no encoder delay: the priming frame is skipped again by starting the stream one
  // frame early, which the MP4 muxer writes as an edit list (as the encoder's own MP4 has).
  await runToolOk(
    FFMPEG,
    [
      ...FF_BASE,
      "-itsoffset",
      (-FRAME / MIX_RATE).toFixed(9),
      ...fileInput(splicedAdts),
      "-c:a",
      "copy",
      "-avoid_negative_ts",
      "disabled",
      "-use_editlist",
      "1",
      m.out,
    ],
    { signal: m.signal },
  );
}
