import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { StepFailure } from "../../../contracts/step-failure";
import { wavInfo } from "../../../gpu-runner/engines/synthesis/audio";
import { VoiceSpecSchema, type SynthesisEngine, type VoiceSpec } from "../../../gpu-runner/engines/synthesis/interface";
import { abortAfter, hostedTransportCases, requiredSettingCase, useFixture } from "../../support/engine-conformance";
import { rejectionOf } from "../../support/rejection";
import { HOSTED_SYNTHESIS_BACKENDS, SYNTHESIS_BACKENDS, type SynthesisHarness } from "../../support/synthesis-backends";

/**
 * What every speech synthesis engine does, whatever its backend: the local engines for real, each
 * hosted API against its fake. Format details of one backend live in synthesis-<backend>.test.ts.
 */
const TEXT = "Hello world, this is the dubbed line.";
let made = 0;

function createVoice(h: SynthesisHarness, engine: SynthesisEngine, signal: AbortSignal = AbortSignal.timeout(30_000)): Promise<VoiceSpec> {
  return engine.createVoice({
    sampleWavPath: h.sample,
    language: h.language,
    referenceOutPath: path.join(h.dir, `ref-${++made}.wav`),
    signal,
  });
}

function synthesize(h: SynthesisHarness, engine: SynthesisEngine, voice: VoiceSpec, signal: AbortSignal = AbortSignal.timeout(30_000)) {
  return engine.synthesize({
    text: TEXT,
    language: h.language,
    voice,
    referencePath: path.join(h.dir, `ref-${made}.wav`),
    outPath: path.join(h.dir, `out-${++made}.wav`),
    signal,
  });
}

function signalFor(h: SynthesisHarness, reason: unknown): AbortSignal {
  const delay = h.hang();
  return delay === 0 ? AbortSignal.abort(reason) : abortAfter(delay, reason);
}

describe.each(SYNTHESIS_BACKENDS)("$name synthesis engine", (backend) => {
  const h = useFixture(backend.start);

  it("names its engine and model, and speaks the harness language", () => {
    const engine = h().engine();
    expect(engine.engine).toBe(backend.name);
    expect(engine.model).toMatch(
      backend.model instanceof RegExp ? backend.model : new RegExp(`^${backend.model.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
    );
    expect(engine.supportsLanguage(h().language)).toBe(true);
    expect(engine.languages().length).toBeGreaterThan(0);
  });

  it("makes a voice of its kind, matched to the speaker's measurements, that survives a JSON round trip", async () => {
    const voice = await createVoice(h(), h().engine());
    expect(voice.kind).toBe(h().kind);
    expect(voice.matchedTo?.f0MedianHz).toBeGreaterThan(70);
    expect(voice.matchedTo?.f0MedianHz).toBeLessThan(120);
    expect(VoiceSpecSchema.parse(JSON.parse(JSON.stringify(voice)))).toEqual(voice);
  });

  it("synthesises a WAV whose reported duration is the file's", async () => {
    const engine = h().engine();
    const r = await synthesize(h(), engine, await createVoice(h(), engine));
    const bytes = await readFile(r.path);
    expect(bytes.toString("ascii", 0, 4)).toBe("RIFF");
    expect(r.durationSec).toBeGreaterThan(0.5);
    expect(r.durationSec).toBeCloseTo((await wavInfo(r.path)).durationSec, 3);
  });

  it("refuses a voice another engine made, not retryable", async () => {
    const foreign: VoiceSpec =
      h().kind === "clone"
        ? {
            kind: "profile",
            engine: "espeak-ng",
            baseVoice: "en-us+m3",
            language: "en",
            gender: "male",
            pitch: { targetHz: 100, setting: 45, unit: "espeak-p" },
            rate: { multiplier: 1, setting: 175, unit: "espeak-wpm" },
            matchedTo: null,
            calibration: { f0MedianHz: null, syllablesPerSec: null, rateLanguage: "en" },
          }
        : {
            kind: "clone",
            engine: "replicate",
            model: "x/y",
            language: "en",
            reference: { sha256: "0".repeat(64), durationSec: 5 },
            matchedTo: null,
          };
    const f = await rejectionOf(synthesize(h(), h().engine(), foreign), StepFailure);
    expect(f.retryable).toBe(false);
  });

  it("stops when the task is cancelled, rejecting with the signal's reason", async () => {
    const engine = h().engine();
    const voice = await createVoice(h(), engine);
    const reason = new Error("cancel requested");
    const started = Date.now();
    await expect(synthesize(h(), engine, voice, signalFor(h(), reason))).rejects.toBe(reason);
    expect(Date.now() - started).toBeLessThan(1_500);
  });

  it("fails with a retryable error that names the engine and model", async () => {
    const engine = h().engine(h().breakIt());
    // Whichever step first needs what is broken (Replicate makes voices without a request).
    const f = await rejectionOf(
      createVoice(h(), engine).then((voice) => synthesize(h(), engine, voice)),
      StepFailure,
    );
    expect(f.retryable).toBe(true);
    expect(f.message.startsWith(`${backend.name} (${engine.model}): `)).toBe(true);
  });
});

describe.each(HOSTED_SYNTHESIS_BACKENDS)("$name synthesis engine over HTTP", (backend) => {
  const h = useFixture(backend.start);

  hostedTransportCases(h, {
    name: backend.name,
    model: backend.model as string,
    async run(engine, signal) {
      const { voice, referencePath } = await h().readyVoice();
      return engine.synthesize({
        text: TEXT,
        language: "es",
        voice,
        referencePath,
        outPath: path.join(h().dir, `out-${++made}.wav`),
        signal,
      });
    },
    expectResult: (r) => expect((r as { durationSec: number }).durationSec).toBeGreaterThan(0.5),
  });

  requiredSettingCase("synthesis", h);
});
