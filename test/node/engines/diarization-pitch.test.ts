import { describe, expect, it } from "vitest";
import { logPitchFrames, median } from "../../../gpu-runner/engines/diarization/pitch";
import type { Pcm16 } from "../../../gpu-runner/engines/diarization/pcm";

/** The pitch estimate clustering uses (gpu-runner/engines/diarization/pitch.ts), on signals whose pitch is known. */
const RATE = 16_000;

/** One second of a voice-like harmonic tone at `hz`: ten harmonics falling off, the second as strong as the first. */
function voiced(hz: number, seconds = 1): Pcm16 {
  const samples = Int16Array.from({ length: seconds * RATE }, (_, i) => {
    let x = 0;
    for (let k = 1; k <= 10; k++) x += (k === 2 ? 1 : 1 / k) * Math.sin((2 * Math.PI * hz * k * i) / RATE);
    return Math.round(x * 6000);
  });
  return { samples, sampleRate: RATE };
}

function noise(seconds = 1): Pcm16 {
  let seed = 7;
  const samples = Int16Array.from({ length: seconds * RATE }, () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return Math.round((seed / 0x7fffffff - 0.5) * 20000);
  });
  return { samples, sampleRate: RATE };
}

const pitchHz = (pcm: Pcm16) => Math.exp(median(logPitchFrames(pcm, 0, pcm.samples.length)));

describe("diarization pitch", () => {
  it.each([100, 120, 180, 220, 300])("finds %i Hz within 5%, not an octave off", (hz) => {
    expect(Math.abs(pitchHz(voiced(hz)) / hz - 1)).toBeLessThan(0.05);
  });

  it("marks frames of noise unvoiced", () => {
    expect(logPitchFrames(noise(), 0, RATE).every((f) => Number.isNaN(f))).toBe(true);
  });

  it("gives one frame every 32 ms of the span that leaves room for the longest period", () => {
    expect(logPitchFrames(voiced(150), 0, RATE)).toHaveLength(30);
  });
});
