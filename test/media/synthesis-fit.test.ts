import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeMono } from "../../gpu-runner/engines/synthesis/audio";
import { fitToSlot, MAX_COMPRESSION, type FitResult } from "../../gpu-runner/engines/synthesis/fit";
import { createSynthesisEngine } from "../../gpu-runner/engines/synthesis/factory";
import type { SynthesisEngine, VoiceSpec } from "../../gpu-runner/engines/synthesis/interface";
import { speakerSample } from "../support/synthesis-backends";

/** Fitting synthesised speech into its slot, with eSpeak NG and Festival for real. */
const LONG = "Every morning she walks to the market and buys fresh bread and a little cheese for the whole family.";
let dir = "";
let n = 0;
const engines: Record<string, { engine: SynthesisEngine; voice: VoiceSpec }> = {};

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "synthesis-fit-"));
  const sample = await speakerSample(dir, ["-v", "en-us+f3", "-s", "175"]);
  for (const name of ["espeak-ng", "festival"] as const) {
    const engine = createSynthesisEngine(name, {});
    const voice = await engine.createVoice({
      sampleWavPath: sample,
      language: "en",
      referenceOutPath: path.join(dir, "ref.wav"),
      signal: AbortSignal.timeout(30_000),
    });
    engines[name] = { engine, voice };
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function fit(slotSec: number, text = LONG, engine = "espeak-ng"): Promise<FitResult> {
  const { engine: e, voice } = engines[engine]!;
  const signal = AbortSignal.timeout(60_000);
  return fitToSlot({
    slotSec,
    outPath: path.join(dir, `fit-${++n}.wav`),
    signal,
    synthesize: (rate, outPath) => e.synthesize({ text, language: "en", voice, rate, outPath, signal }),
  });
}

async function naturalSec(text = LONG, engine = "espeak-ng"): Promise<number> {
  return (await fit(60, text, engine)).naturalDurationSec;
}

describe("fitting speech to its slot", () => {
  it("keeps speech that fits as the voice said it: not sped up, not stretched, no flags", async () => {
    const r = await fit(20, "Good morning.");
    expect(r).toMatchObject({ stretch: 1, rate: 1, flags: [] });
    expect(r.speechDurationSec).toBe(r.naturalDurationSec);
  });

  it("compresses speech within the bound to fit, without flags", async () => {
    const natural = await naturalSec();
    const r = await fit(natural / 1.15);
    expect(r.flags).toEqual([]);
    expect(r.rate).toBe(1);
    expect(r.stretch).toBeCloseTo(1 / 1.15, 2);
    expect(r.speechDurationSec).toBeLessThanOrEqual(natural / 1.15 + 0.001);
  });

  it("raises the speaking rate, flagged, when compression within the bound cannot fit", async () => {
    const natural = await naturalSec();
    const r = await fit(natural / 1.5);
    expect(r.flags).toContain("rate_raised");
    expect(r.rate).toBeGreaterThan(1);
    expect(r.stretch).toBeGreaterThanOrEqual(1 / MAX_COMPRESSION - 0.001);
  });

  it("cuts what cannot fit even at both bounds at the slot's end, flagged", async () => {
    const natural = await naturalSec();
    const r = await fit(natural / 3);
    expect(r.flags).toEqual(["rate_raised", "trimmed"]);
    expect(r.speechDurationSec).toBeCloseTo(natural / 3, 2);
  });

  it.each(["espeak-ng", "festival"])("never overruns a slot by more than 5% (%s)", async (engine) => {
    const natural = await naturalSec(LONG, engine);
    for (const share of [1.2, 0.9, 0.7, 0.5, 0.3]) {
      const slot = natural * share;
      expect((await fit(slot, LONG, engine)).speechDurationSec).toBeLessThanOrEqual(slot * 1.05);
    }
  });

  it("starts the speech at the slot's start: the voice's leading silence is cut", async () => {
    const r = await fit(20, "Hello there.", "festival");
    const samples = await decodeMono(r.path, {
      sampleRate: 16_000,
      maxSec: 0.1,
      signal: AbortSignal.timeout(10_000),
      scratchPath: path.join(dir, "head.f32"),
    });
    const loud = samples.findIndex((v) => Math.abs(v) > 0.01);
    expect(loud).toBeGreaterThanOrEqual(0);
    expect(loud / 16_000).toBeLessThan(0.1);
  });

  it("refuses a slot without length", async () => {
    await expect(fit(0)).rejects.toThrow(RangeError);
  });
});
