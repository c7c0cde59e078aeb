import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import { createSynthesisEngine } from "../../gpu-runner/engines/synthesis/factory";
import type { SynthesisEngine, SynthesisEngineName, VoiceSpec } from "../../gpu-runner/engines/synthesis/interface";
import { OPENAI_COMPATIBLE_TTS_DEFAULT_MODEL } from "../../gpu-runner/engines/synthesis/openai-compatible";
import { makeReferenceClip } from "../../gpu-runner/engines/synthesis/reference";
import { REPLICATE_TTS_DEFAULT_MODEL } from "../../gpu-runner/engines/synthesis/replicate";
import type { FakeHttpServer } from "./fakes/fake-http";
import { engineEnv, OPENAI_COMPATIBLE_FAKE, REPLICATE_FAKE, startHosted } from "./hosted-fakes";
import type { HostedFake, HostedFixture } from "./hosted-fakes";

/**
 * Every speech synthesis backend, each with what it talks to: the local engines for real (eSpeak
 * NG, Festival, both behind `local`), the hosted ones against their fake APIs. The conformance
 * suite runs over this list; the per-backend format tests take one entry.
 */
export interface SynthesisHarness {
  /** An engine for this backend; `env` adds or overrides variables. */
  engine(env?: EngineEnv): SynthesisEngine;
  /** A speaker sample (eSpeak NG, en-us, male variant at a known pitch), and a scratch dir. */
  sample: string;
  dir: string;
  /** A language the backend speaks. */
  language: string;
  /** What kind of voice the backend makes. */
  kind: VoiceSpec["kind"];
  /** Makes the next call slow enough to cancel; returns when to cancel (0: before the call). */
  hang(): number;
  /** Makes every call fail; returns the variables the engine must be built with. */
  breakIt(): EngineEnv;
  reset(): void;
  close(): Promise<void>;
}

export interface HostedSynthesisHarness<F extends FakeHttpServer = FakeHttpServer> extends SynthesisHarness, HostedFixture<F> {
  /** A voice ready to speak without any request reaching the fake (so scripted faults hit synthesis). */
  readyVoice(): Promise<{ voice: VoiceSpec; referencePath: string }>;
}

export interface SynthesisBackend<H extends SynthesisHarness = SynthesisHarness> {
  name: SynthesisEngineName;
  /** The model the engine records (a pattern for local engines, whose version comes from the tool). */
  model: string | RegExp;
  start(): Promise<H>;
}

/** A male speaker at eSpeak NG's `-p 30` (~90 Hz median F0) and 190 words per minute. */
export const SAMPLE_TEXT = "This is a sample of a speaker talking about the weather, the market and the long road home.";

export async function speakerSample(dir: string, args: readonly string[] = ["-v", "en-us+m3", "-p", "30", "-s", "190"]): Promise<string> {
  const file = path.join(dir, "speaker.wav");
  execFileSync("espeak-ng", [...args, "-w", file, SAMPLE_TEXT]);
  return file;
}

export function synthesisEngine(name: SynthesisEngineName, env: EngineEnv, model?: string): SynthesisEngine {
  return createSynthesisEngine(name, env, model ? { model } : {});
}

function local(name: SynthesisEngineName, model: RegExp, language: string, broken: EngineEnv): SynthesisBackend {
  return {
    name,
    model,
    async start() {
      const dir = await mkdtemp(path.join(os.tmpdir(), `synthesis-${name}-`));
      return {
        engine: (env = {}) => synthesisEngine(name, env),
        sample: await speakerSample(dir),
        dir,
        language,
        kind: "profile",
        hang: () => 0,
        breakIt: () => broken,
        reset: () => undefined,
        close: () => rm(dir, { recursive: true, force: true }),
      };
    },
  };
}

/**
 * Makes a hosted backend's voice once per harness, without a request (`engine` reaches the fake);
 * `register` puts it back on the fake's side after each reset.
 */
interface Seed<F> {
  make(engine: SynthesisEngine, sample: string, referencePath: string): Promise<VoiceSpec>;
  register(fake: F, referencePath: string): Promise<void>;
}

function hosted<F extends FakeHttpServer>(
  name: SynthesisEngineName,
  model: string,
  opts: HostedFake<F>,
  seed: Seed<F>,
): SynthesisBackend<HostedSynthesisHarness<F>> {
  return {
    name,
    model,
    async start() {
      const fixture = await startHosted(opts, "SYNTHESIS");
      const { fake } = fixture;
      const dir = await mkdtemp(path.join(os.tmpdir(), `synthesis-${name}-`));
      const sample = await speakerSample(dir);
      const referencePath = path.join(dir, "seeded.wav");
      const seeded = seed.make(synthesisEngine(name, engineEnv(fixture)), sample, referencePath);
      return {
        ...fixture,
        async readyVoice() {
          const voice = await seeded;
          await seed.register(fake, referencePath);
          return { voice, referencePath };
        },
        engine: (overrides) => synthesisEngine(name, engineEnv(fixture, overrides)),
        sample,
        dir,
        language: "es",
        kind: "clone",
        hang: () => {
          fake.fail({ delayMs: 5_000 });
          return 100;
        },
        breakIt: () => {
          fake.failAlways({ status: 503, message: "model is loading" });
          return {};
        },
        reset: () => fake.reset(),
        async close() {
          await fake.close();
          await rm(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

export const LOCAL = local("local", /^festival 2\.5 hts \+ espeak-ng [\d.]+$/, "en", {
  ESPEAK_NG_BIN: "/nonexistent/espeak-ng",
  FESTIVAL_TEXT2WAVE: "/nonexistent/text2wave",
});
export const ESPEAK_NG = local("espeak-ng", /^espeak-ng [\d.]+$/, "es-419", { ESPEAK_NG_BIN: "/nonexistent/espeak-ng" });
export const FESTIVAL = local("festival", /^festival 2\.5 hts$/, "ca", { FESTIVAL_TEXT2WAVE: "/nonexistent/text2wave" });
export const OPENAI_COMPATIBLE = hosted("openai-compatible", OPENAI_COMPATIBLE_TTS_DEFAULT_MODEL, OPENAI_COMPATIBLE_FAKE, {
  async make(engine, sample, referencePath) {
    const clip = await makeReferenceClip({
      sampleWavPath: sample,
      language: "es",
      referenceOutPath: referencePath,
      signal: AbortSignal.timeout(30_000),
    });
    const reference = { sha256: clip.sha256, durationSec: clip.durationSec, voiceId: "voice_seeded" };
    return { kind: "clone", engine: "openai-compatible", model: engine.model, language: "es", reference, matchedTo: clip.measured };
  },
  async register(fake, referencePath) {
    fake.voices.set("voice_seeded", { name: "seeded", sample: await readFile(referencePath), consent: null });
  },
});

// Replicate keeps no voices: creating one makes no request, and there is nothing to register.
export const REPLICATE = hosted("replicate", REPLICATE_TTS_DEFAULT_MODEL, REPLICATE_FAKE, {
  make: (engine, sample, referencePath) =>
    engine.createVoice({ sampleWavPath: sample, language: "es", referenceOutPath: referencePath, signal: AbortSignal.timeout(30_000) }),
  register: () => Promise.resolve(),
});

export const HOSTED_SYNTHESIS_BACKENDS: SynthesisBackend<HostedSynthesisHarness>[] = [OPENAI_COMPATIBLE, REPLICATE];
export const SYNTHESIS_BACKENDS: SynthesisBackend[] = [LOCAL, ESPEAK_NG, FESTIVAL, ...HOSTED_SYNTHESIS_BACKENDS];
