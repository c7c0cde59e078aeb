import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import type { EngineEnv } from "../../gpu-runner/engines/config";
import { createSpeechEngine } from "../../gpu-runner/engines/speech/factory";
import type { SpeechEngine, SpeechEngineName } from "../../gpu-runner/engines/speech/interface";
import type { VocabularyMethod } from "../../gpu-runner/engines/speech/vocabulary";
import { REPLICATE_DEFAULT_MODEL } from "../../gpu-runner/engines/speech/replicate";
import { WORKERS_AI_DEFAULT_MODEL } from "../../gpu-runner/engines/speech/workers-ai";
import type { FakeHttpServer } from "./fakes/fake-http";
import { engineEnv, OPENAI_COMPATIBLE_FAKE, REPLICATE_FAKE, startHosted, WORKERS_AI_FAKE } from "./hosted-fakes";
import type { HostedFake, HostedFixture } from "./hosted-fakes";
import { LIBRIVOX_0880 } from "./media-fixtures";

/**
 * Every speech backend, each with what it talks to: the local PocketSphinx decoder on a LibriVox
 * recording, the hosted ones against their fake APIs. The conformance suite runs over this list;
 * the per-backend format tests take one entry.
 */
export interface SpeechHarness {
  /** An engine for this backend; `env` adds or overrides variables. */
  engine(env?: EngineEnv): SpeechEngine;
  /** A file to transcribe. */
  audio: string;
  /** What the engine must recognise in it. */
  expectedText: RegExp;
  /** Whether the engine returns segments as well as words. */
  segments: boolean;
  /** Makes the next transcription take long enough to be cancelled. */
  hang(): void;
  /** Makes every transcription fail; returns the variables the engine must be built with. */
  breakIt(): EngineEnv;
  reset(): void;
  close(): Promise<void>;
}

export interface HostedSpeechHarness<F extends FakeHttpServer = FakeHttpServer> extends SpeechHarness, HostedFixture<F> {}

export interface SpeechBackend<H extends SpeechHarness = SpeechHarness> {
  name: SpeechEngineName;
  /** The model the engine records. */
  model: string;
  /** How the engine passes a vocabulary to its recogniser (EngineTranscript.vocabulary.method). */
  vocabularyMethod: VocabularyMethod;
  start(): Promise<H>;
}

/** Bytes standing in for a compressed chunk: the fakes do not decode audio. */
export const FAKE_AUDIO = Buffer.from("ID3-fake-mp3-bytes-for-the-request");

export function speechEngine(name: SpeechEngineName, env: EngineEnv, speechModel?: string): SpeechEngine {
  return createSpeechEngine({ ...DEFAULT_SETTINGS.transcription, speechEngine: name, ...(speechModel ? { speechModel } : {}) }, env);
}

function hosted<F extends FakeHttpServer>(
  name: SpeechEngineName,
  model: string,
  vocabularyMethod: VocabularyMethod,
  opts: HostedFake<F> & { speechModel?: string },
): SpeechBackend<HostedSpeechHarness<F>> {
  return {
    name,
    model,
    vocabularyMethod,
    async start() {
      const fixture = await startHosted(opts, "SPEECH");
      const { fake } = fixture;
      const dir = await mkdtemp(path.join(os.tmpdir(), `speech-${name}-`));
      const audio = path.join(dir, "chunk-0001.mp3");
      await writeFile(audio, FAKE_AUDIO);
      return {
        ...fixture,
        engine: (overrides) => speechEngine(name, engineEnv(fixture, overrides), opts.speechModel),
        audio,
        expectedText: /^Hello world\.$/,
        segments: true,
        hang: () => fake.fail({ delayMs: 5_000 }),
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

export const OPENAI_COMPATIBLE = hosted("openai-compatible", "Systran/faster-whisper-small", "prompt", {
  ...OPENAI_COMPATIBLE_FAKE,
  speechModel: "Systran/faster-whisper-small",
});

export const WORKERS_AI = hosted("workers-ai", WORKERS_AI_DEFAULT_MODEL, "initial_prompt", WORKERS_AI_FAKE);

export const REPLICATE = hosted("replicate", REPLICATE_DEFAULT_MODEL, "initial_prompt", REPLICATE_FAKE);

export const LOCAL_POCKETSPHINX: SpeechBackend = {
  name: "local-pocketsphinx",
  model: "cmusphinx-en-us-ptm-5prealpha",
  vocabularyMethod: "dictionary_unigram_boost",
  start: () =>
    Promise.resolve({
      engine: (env = {}) => speechEngine("local-pocketsphinx", env),
      audio: LIBRIVOX_0880,
      // Reference: "he was not an ill disposed young man"
      expectedText: /^he was not .* young man$/,
      segments: false,
      // Decoding the recording takes far longer than the cancel test waits.
      hang: () => undefined,
      breakIt: () => ({ POCKETSPHINX_HMM: "/nonexistent/model" }),
      reset: () => undefined,
      close: () => Promise.resolve(),
    }),
};

export const HOSTED_SPEECH_BACKENDS: SpeechBackend<HostedSpeechHarness>[] = [OPENAI_COMPATIBLE, WORKERS_AI, REPLICATE];
export const SPEECH_BACKENDS: SpeechBackend[] = [LOCAL_POCKETSPHINX, ...HOSTED_SPEECH_BACKENDS];
