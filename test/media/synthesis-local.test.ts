import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { espeakVoiceFor, espeakVoiceList } from "../../gpu-runner/engines/synthesis/espeak-voices";
import { createSynthesisEngine } from "../../gpu-runner/engines/synthesis/factory";
import type { ProfileVoiceSpec, SynthesisEngineName } from "../../gpu-runner/engines/synthesis/interface";
import { measureVoice } from "../../gpu-runner/engines/synthesis/voice-analysis";

/** The local engines' voice profiles, on eSpeak NG speakers of known pitch and rate. */
let dir = "";
let n = 0;
const signal = () => AbortSignal.timeout(60_000);
const TEXT = "This is a sample of a speaker talking about the weather, the market and the long road home.";

function speaker(name: string, args: readonly string[]): string {
  const file = path.join(dir, `${name}.wav`);
  execFileSync("espeak-ng", [...args, "-w", file, TEXT]);
  return file;
}

async function profile(engine: SynthesisEngineName, sample: string, language: string): Promise<ProfileVoiceSpec> {
  const voice = await createSynthesisEngine(engine, {}).createVoice({
    sampleWavPath: sample,
    language,
    referenceOutPath: path.join(dir, "ref.wav"),
    signal: signal(),
  });
  if (voice.kind !== "profile") throw new Error("expected a profile");
  return voice;
}

async function spokenF0(engine: SynthesisEngineName, voice: ProfileVoiceSpec, text: string): Promise<number> {
  const out = path.join(dir, `out-${++n}.wav`);
  await createSynthesisEngine(engine, {}).synthesize({ text, language: voice.language, voice, outPath: out, signal: signal() });
  return (await measureVoice(out, { signal: signal() })).f0MedianHz!;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "synthesis-local-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("eSpeak NG voices for request languages", () => {
  const list = espeakVoiceList("espeak-ng");

  it.each([
    ["es", "es"],
    ["es-419", "es-419"],
    ["es-MX", "es-419"],
    ["pt-BR", "pt-br"],
    ["en", "en-us"],
    ["en-GB", "en-gb"],
    ["zh", "cmn"],
    ["ca", "ca"],
  ])("speaks %s with the %s voice", (language, voice) => {
    expect(espeakVoiceFor(list, language)).toBe(voice);
  });

  it("has no voice for a language eSpeak NG does not have", () => {
    expect(espeakVoiceFor(list, "xx")).toBeUndefined();
  });

  it("offers every language of its voice list, regional forms included", () => {
    expect(list.languages).toEqual(expect.arrayContaining(["es", "es-419", "pt-BR", "ca", "eu", "eo", "mk", "is", "hr"]));
  });
});

describe("local voice profiles", () => {
  it("gives a low-pitched speaker eSpeak NG's male variant, speaking at the speaker's pitch", async () => {
    const sample = speaker("low", ["-v", "en-us+m3", "-p", "20"]);
    const voice = await profile("espeak-ng", sample, "es");
    expect(voice).toMatchObject({ engine: "espeak-ng", baseVoice: "es+m3", gender: "male" });
    expect(
      (await spokenF0("espeak-ng", voice, "Cada mañana camina hasta el mercado y compra pan.")) / voice.matchedTo!.f0MedianHz!,
    ).toBeCloseTo(1, 1);
  });

  it("gives a high-pitched speaker the female variant, speaking at the speaker's pitch", async () => {
    const sample = speaker("high", ["-v", "en-us+f3", "-p", "70"]);
    const voice = await profile("espeak-ng", sample, "pt-BR");
    expect(voice).toMatchObject({ baseVoice: "pt-br+f3", gender: "female" });
    expect((await spokenF0("espeak-ng", voice, "Todas as manhãs ela caminha até o mercado.")) / voice.matchedTo!.f0MedianHz!).toBeCloseTo(
      1,
      1,
    );
  });

  it("gives a faster speaker a faster voice", async () => {
    const slow = await profile("espeak-ng", speaker("slow", ["-v", "en-us", "-s", "130"]), "en");
    const fast = await profile("espeak-ng", speaker("fast", ["-v", "en-us", "-s", "230"]), "en");
    expect(fast.rate.setting).toBeGreaterThan(slow.rate.setting * 1.3);
  });

  it("judges the speaker's rate against the engine in the sample's language when it is named", async () => {
    const sample = speaker("norm", ["-v", "en-us+f3", "-s", "175"]);
    const voice = await createSynthesisEngine("espeak-ng", {}).createVoice({
      sampleWavPath: sample,
      sampleLanguage: "en",
      language: "es",
      referenceOutPath: path.join(dir, "ref.wav"),
      signal: signal(),
    });
    // An English speaker at eSpeak NG's own English rate gets Spanish at eSpeak NG's own Spanish rate.
    expect(voice).toMatchObject({ calibration: { rateLanguage: "en" } });
    expect(voice.kind === "profile" && voice.rate.multiplier).toBeCloseTo(1, 0);
  });

  it("shifts Festival's voice to the speaker's pitch", async () => {
    const voice = await profile("festival", speaker("alto", ["-v", "en-us+f3", "-p", "75"]), "en");
    expect(voice.pitch.setting).toBeGreaterThan(1);
    const f0 = await spokenF0("festival", voice, "Every morning she walks to the market and buys fresh bread.");
    expect(Math.abs(12 * Math.log2(f0 / voice.pitch.targetHz))).toBeLessThan(1.5);
  });

  it("reads Catalan accents as the Festival voice's Latin-1, not as spelled-out bytes", async () => {
    const voice = await profile("festival", speaker("ca", ["-v", "en-us+f3"]), "ca");
    const out = path.join(dir, "catalan.wav");
    const r = await createSynthesisEngine("festival", {}).synthesize({
      text: "Això és una prova de síntesi de veu en català amb accents.",
      language: "ca",
      voice: { ...voice, rate: { ...voice.rate, setting: 1 } },
      outPath: out,
      signal: signal(),
    });
    // Measured: 3.9 s read as Latin-1, 5.8 s when the UTF-8 bytes are spelled out.
    expect(r.durationSec).toBeLessThan(4.8);
  });

  it("speaks English with Festival for a speaker near its voice, and with eSpeak NG's male variant for one far below it", async () => {
    expect((await profile("local", speaker("near", ["-v", "en-us+f3", "-p", "40"]), "en")).engine).toBe("festival");
    expect(await profile("local", speaker("far", ["-v", "en-us+m3", "-p", "10"]), "en")).toMatchObject({
      engine: "espeak-ng",
      gender: "male",
    });
  });

  it("speaks a language Festival lacks with eSpeak NG", async () => {
    expect((await profile("local", speaker("any", ["-v", "en-us+f3"]), "eu")).engine).toBe("espeak-ng");
  });
});
