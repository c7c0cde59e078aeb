import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createDiarizationEngine } from "../../gpu-runner/engines/diarization/factory";
import type { DiarizationEngine, DiarizationEngineName, EngineEnv } from "../../gpu-runner/engines/diarization/interface";
import { LOCAL_MODEL } from "../../gpu-runner/engines/diarization/local";
import { REPLICATE_DIARIZATION_DEFAULT_MODEL } from "../../gpu-runner/engines/diarization/replicate";
import type { FakeReplicate, FakeSpeakerTurn } from "./fakes/replicate";
import { engineEnv, REPLICATE_FAKE, startHosted, type HostedFixture } from "./hosted-fakes";
import { silentWav, twoVoiceSample, type TwoVoiceSample } from "./two-voice";

/**
 * Every diarization backend, each with what it listens to: the local engine on the two-voice TTS
 * conversation, Replicate's pyannote model against the fake, which is told the conversation's true
 * turns (under pyannote's own labels, the first voice heard called SPEAKER_01, so renaming shows).
 * The conformance suite runs over this list; the per-backend tests take one entry.
 */
export interface DiarizationHarness {
  /** An engine for this backend; `env` adds or overrides variables. */
  engine(env?: EngineEnv): DiarizationEngine;
  sample: TwoVoiceSample;
  /** A recording with nothing said (for the fake: makes the model hear nobody). */
  silence(): Promise<string>;
  /** Makes the next diarization take long enough to be cancelled. */
  hang(): void;
  reset(): void;
  close(): Promise<void>;
}

export interface HostedDiarizationHarness extends DiarizationHarness, HostedFixture<FakeReplicate> {
  /** A stand-in MP3, sent as it is: for cases about the transport (the fake hears `speakerTurns` in anything). */
  clip: string;
}

export interface DiarizationBackend<H extends DiarizationHarness = DiarizationHarness> {
  name: DiarizationEngineName;
  /** The model the engine records. */
  model: string;
  start(): Promise<H>;
}

export const LOCAL_MFCC: DiarizationBackend = {
  name: "local-mfcc",
  model: LOCAL_MODEL,
  async start() {
    const sample = await twoVoiceSample();
    return {
      engine: (env = {}) => createDiarizationEngine("local-mfcc", env),
      sample,
      silence: () => silentWav(),
      // Analysing the conversation takes far longer than the cancel tests wait.
      hang: () => undefined,
      reset: () => undefined,
      close: () => Promise.resolve(),
    };
  },
};

/** Bytes standing in for a compressed recording: the fake does not decode audio. */
export const FAKE_MP3 = Buffer.from("ID3-fake-mp3-bytes-for-the-request");

/** The truth as pyannote would label it: the first voice heard is SPEAKER_01. */
export function pyannoteTurns(sample: TwoVoiceSample): FakeSpeakerTurn[] {
  return sample.truth.map((t) => ({
    start: t.start,
    end: t.end,
    speaker: t.voice === sample.truth[0]!.voice ? "SPEAKER_01" : "SPEAKER_00",
  }));
}

export const REPLICATE: DiarizationBackend<HostedDiarizationHarness> = {
  name: "replicate",
  model: REPLICATE_DIARIZATION_DEFAULT_MODEL,
  async start() {
    const sample = await twoVoiceSample();
    const fixture = await startHosted(REPLICATE_FAKE, "DIARIZATION");
    const { fake } = fixture;
    const hear = () => {
      fake.speakerTurns = pyannoteTurns(sample);
    };
    hear();
    const clip = path.join(await mkdtemp(path.join(os.tmpdir(), "diarize-replicate-test-")), "audio.mp3");
    await writeFile(clip, FAKE_MP3);
    return {
      ...fixture,
      clip,
      engine: (overrides) => createDiarizationEngine("replicate", engineEnv(fixture, overrides)),
      sample,
      silence: () => {
        fake.speakerTurns = [];
        return silentWav();
      },
      hang: () => fake.fail({ delayMs: 5_000 }),
      reset: () => {
        fake.reset();
        hear();
      },
      async close() {
        await fake.close();
        await rm(path.dirname(clip), { recursive: true, force: true });
      },
    };
  },
};

export const HOSTED_DIARIZATION_BACKENDS: DiarizationBackend<HostedDiarizationHarness>[] = [REPLICATE];
export const DIARIZATION_BACKENDS: DiarizationBackend[] = [LOCAL_MFCC, ...HOSTED_DIARIZATION_BACKENDS];
