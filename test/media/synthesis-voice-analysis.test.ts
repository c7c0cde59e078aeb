import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyseSamples, measureVoice } from "../../gpu-runner/engines/synthesis/voice-analysis";

/** Voice measurements against signals of known pitch and eSpeak NG speech of known pitch and rate. */
let dir = "";
const signal = () => AbortSignal.timeout(30_000);
/** 29 syllables. */
const TEXT = "The quick brown fox jumps over the lazy dog. Every morning she walks to the market and buys fresh bread for the family.";

function espeak(name: string, args: readonly string[], text = TEXT): string {
  const file = path.join(dir, `${name}.wav`);
  execFileSync("espeak-ng", [...args, "-w", file, text]);
  return file;
}

function harmonicTone(f0: number, seconds: number, sampleRate = 16_000): Float32Array {
  const x = new Float32Array(Math.round(seconds * sampleRate));
  for (let i = 0; i < x.length; i++) for (let h = 1; h <= 6; h++) x[i]! += (0.3 / h) * Math.sin((2 * Math.PI * f0 * h * i) / sampleRate);
  return x;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "voice-analysis-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("voice analysis", () => {
  it("finds the pitch of a harmonic tone within 1%", () => {
    for (const f0 of [85, 150, 240]) expect(analyseSamples(harmonicTone(f0, 2), 16_000).f0MedianHz! / f0).toBeCloseTo(1, 2);
  });

  it("reports no pitch, no syllables and no speech in silence", () => {
    expect(analyseSamples(new Float32Array(32_000), 16_000)).toMatchObject({ f0MedianHz: null, syllablesPerSec: null, speechSec: 0 });
  });

  it("follows eSpeak NG's pitch setting, low to high", async () => {
    const f0s = [];
    for (const p of [10, 50, 90])
      f0s.push((await measureVoice(espeak(`p${p}`, ["-v", "en-us+m3", "-p", String(p)]), { signal: signal() })).f0MedianHz!);
    expect(f0s[0]!).toBeLessThan(f0s[1]! * 0.9);
    expect(f0s[1]!).toBeLessThan(f0s[2]! * 0.9);
  });

  it("tells a male variant from a female one by more than five semitones", async () => {
    const male = await measureVoice(espeak("m3", ["-v", "en-us+m3"]), { signal: signal() });
    const female = await measureVoice(espeak("f3", ["-v", "en-us+f3"]), { signal: signal() });
    expect(12 * Math.log2(female.f0MedianHz! / male.f0MedianHz!)).toBeGreaterThan(5);
  });

  it("counts the syllables of a known text within 15%", async () => {
    const m = await measureVoice(espeak("s150", ["-v", "en-us", "-s", "150"]), { signal: signal() });
    expect((m.syllablesPerSec! * m.speechSec) / 29).toBeGreaterThan(0.85);
    expect((m.syllablesPerSec! * m.speechSec) / 29).toBeLessThan(1.15);
  });

  it("measures a syllable rate that doubles when the voice speaks twice as fast", async () => {
    const slow = await measureVoice(espeak("s110", ["-v", "en-us", "-s", "110"]), { signal: signal() });
    const fast = await measureVoice(espeak("s220", ["-v", "en-us", "-s", "220"]), { signal: signal() });
    expect(fast.syllablesPerSec! / slow.syllablesPerSec!).toBeGreaterThan(1.7);
    expect(fast.syllablesPerSec! / slow.syllablesPerSec!).toBeLessThan(2.3);
  });

  it("leaves pauses out of the seconds of speech", async () => {
    const joined = path.join(dir, "paused.wav");
    const part = espeak("part", ["-v", "en-us"], "Every morning she walks to the market.");
    execFileSync("ffmpeg", ["-v", "error", "-y", "-i", part, "-af", "apad=pad_dur=1.5", path.join(dir, "padded.wav")]);
    execFileSync("ffmpeg", [
      "-v",
      "error",
      "-y",
      "-i",
      path.join(dir, "padded.wav"),
      "-i",
      part,
      "-filter_complex",
      "concat=n=2:v=0:a=1",
      joined,
    ]);
    const one = await measureVoice(part, { signal: signal() });
    const two = await measureVoice(joined, { signal: signal() });
    expect(two.speechSec).toBeCloseTo(2 * one.speechSec, 0);
    expect(two.analysedSec - two.speechSec).toBeGreaterThan(1.4);
  });

  it("measures only the ranges it is given", async () => {
    const male = espeak("male", ["-v", "en-us+m3"], "Every morning he walks to the market.");
    const female = espeak("female", ["-v", "en-us+f3"], "Every morning she walks to the market.");
    const both = path.join(dir, "both.wav");
    execFileSync("ffmpeg", ["-v", "error", "-y", "-i", male, "-i", female, "-filter_complex", "concat=n=2:v=0:a=1", both]);
    const maleSec = Number(
      execFileSync("ffprobe", ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", male], { encoding: "utf8" }),
    );
    const second = await measureVoice(both, { ranges: [{ start: maleSec, end: maleSec + 10 }], signal: signal() });
    const first = await measureVoice(both, { ranges: [{ start: 0, end: maleSec }], signal: signal() });
    expect(first.f0MedianHz!).toBeLessThan(140);
    expect(second.f0MedianHz!).toBeGreaterThan(170);
  });
});
