import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { createSeparationEngine } from "../../gpu-runner/engines/separation/factory";
import type { EngineEnv, SeparationEngine, SeparationEngineName, SpeechStretch } from "../../gpu-runner/engines/separation/interface";
import { LOCAL_FILTERS_METHOD } from "../../gpu-runner/engines/separation/local-filters";
import { REPLICATE_SEPARATION_DEFAULT_MODEL } from "../../gpu-runner/engines/separation/replicate";
import type { FakeReplicate } from "./fakes/replicate";
import { engineEnv, REPLICATE_FAKE, startHosted, type HostedFixture } from "./hosted-fakes";

/**
 * Every separation backend, each with the sound it separates: a made-up source standing for a
 * film's sound (a 220 Hz drone for the background all through, a 1 kHz warble for the speech inside
 * SPEECH), as the pipeline hands it over (48 kHz FLAC), stereo and mono. The local engine runs
 * ffmpeg on it; Replicate's Demucs runs against the fake, whose stems are the input split in half.
 * The conformance suite runs over this list; the per-backend tests take one entry.
 */
export const SOURCE_SEC = 8;
export const SPEECH: readonly SpeechStretch[] = [
  { start: 1, end: 3 },
  { start: 4.5, end: 6.5 },
];

export interface SeparationHarness {
  /** An engine for this backend; `env` adds or overrides variables. */
  engine(env?: EngineEnv): SeparationEngine;
  stereo: string;
  mono: string;
  /** Where outputs go (emptied by nobody: every test names its own files). */
  dir: string;
  /** Makes the next separation take long enough to be cancelled; returns the source to use. */
  hang(): Promise<string>;
  reset(): void;
  close(): Promise<void>;
}

export interface SeparationBackend<H extends SeparationHarness = SeparationHarness> {
  name: SeparationEngineName;
  /** What the engine records as `engine`. */
  recordedAs: string;
  /** What its method must mention. */
  methodMentions: string;
  start(): Promise<H>;
}

const run = promisify(execFile);
const FF = ["-hide_banner", "-nostdin", "-y", "-loglevel", "error"];

/** The made-up film sound: drone throughout (about -24 dBFS RMS), warble inside SPEECH (about 10 dB louder). */
export async function makeSource(file: string, channels: 1 | 2, durationSec = SOURCE_SEC): Promise<string> {
  const inside = SPEECH.map((s) => `between(t,${s.start},${s.end})`).join("+");
  await run("ffmpeg", [
    ...FF,
    ...["-f", "lavfi", "-i", `sine=f=220:r=48000:d=${durationSec}`],
    ...["-f", "lavfi", "-i", `sine=f=1000:r=48000:d=${durationSec}`],
    "-filter_complex",
    `[0:a]volume=0.8[drone];[1:a]volume='if(${inside},2*(1+sin(2*PI*4*t)),0)':eval=frame[voice];[drone][voice]amix=inputs=2:normalize=0`,
    ...["-ac", String(channels), "-c:a", "flac", file],
  ]);
  return file;
}

async function sources(prefix: string) {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  const [stereo, mono] = await Promise.all([makeSource(path.join(dir, "stereo.flac"), 2), makeSource(path.join(dir, "mono.flac"), 1)]);
  return { dir, stereo, mono };
}

export const LOCAL_FILTERS: SeparationBackend = {
  name: "local-filters",
  recordedAs: "ffmpeg-filters",
  methodMentions: LOCAL_FILTERS_METHOD,
  async start() {
    const s = await sources("separation-local-test-");
    let long: string | undefined;
    return {
      ...s,
      engine: (env = {}) => createSeparationEngine("local-filters", env),
      // Five minutes of sound take ffmpeg over a second to filter: far longer than the cancel tests wait.
      hang: async () => (long ??= await makeSource(path.join(s.dir, "long.flac"), 2, 300)),
      reset: () => undefined,
      close: () => rm(s.dir, { recursive: true, force: true }),
    };
  },
};

export interface HostedSeparationHarness extends SeparationHarness, HostedFixture<FakeReplicate> {
  /**
   * The stereo source as MP3, sent as it is, for cases about the transport: the request goes out at
   * once (no encoding first), and the fake has made its stems before the first test.
   */
  clip: string;
}

export const REPLICATE: SeparationBackend<HostedSeparationHarness> = {
  name: "replicate",
  recordedAs: "replicate",
  methodMentions: REPLICATE_SEPARATION_DEFAULT_MODEL,
  async start() {
    const s = await sources("separation-replicate-test-");
    const fixture = await startHosted(REPLICATE_FAKE, "SEPARATION");
    const engine = (overrides?: EngineEnv) => createSeparationEngine("replicate", engineEnv(fixture, overrides));
    const clip = path.join(s.dir, "clip.mp3");
    await run("ffmpeg", [...FF, "-i", s.stereo, "-c:a", "libmp3lame", "-b:a", "192k", clip]);
    const warm = { vocalsOut: path.join(s.dir, "warm-vocals.flac"), backgroundOut: path.join(s.dir, "warm-background.flac") };
    await engine().separate({ audioPath: clip, speech: SPEECH, duckDb: 18, ...warm, signal: AbortSignal.timeout(30_000) });
    fixture.fake.reset();
    return {
      ...s,
      ...fixture,
      clip,
      engine,
      hang: () => {
        fixture.fake.fail({ delayMs: 5_000 });
        return Promise.resolve(s.stereo);
      },
      reset: () => fixture.fake.reset(),
      async close() {
        await fixture.fake.close();
        await rm(s.dir, { recursive: true, force: true });
      },
    };
  },
};

export const HOSTED_SEPARATION_BACKENDS: SeparationBackend<HostedSeparationHarness>[] = [REPLICATE];
export const SEPARATION_BACKENDS: SeparationBackend[] = [LOCAL_FILTERS, ...HOSTED_SEPARATION_BACKENDS];

export interface AudioFacts {
  codec: string;
  sampleRate: number;
  channels: number;
  durationSec: number;
}

/** Codec, rate, channels and duration of a file's first audio stream. */
export async function audioFacts(file: string): Promise<AudioFacts> {
  const { stdout } = await run("ffprobe", [
    ...["-v", "error", "-select_streams", "a:0"],
    ...["-show_entries", "stream=codec_name,sample_rate,channels:format=duration", "-of", "json", file],
  ]);
  const j = JSON.parse(stdout) as {
    streams: { codec_name: string; sample_rate: string; channels: number }[];
    format: { duration: string };
  };
  const st = j.streams[0]!;
  return { codec: st.codec_name, sampleRate: Number(st.sample_rate), channels: st.channels, durationSec: Number(j.format.duration) };
}

/** RMS level in dBFS of `file` between `start` and `end` seconds (-Infinity for digital silence). */
export async function rmsDb(file: string, start: number, end: number): Promise<number> {
  const { stderr } = await run("ffmpeg", [
    ...["-hide_banner", "-nostdin", "-i", file],
    ...["-af", `atrim=${start}:${end},astats=measure_overall=RMS_level:measure_perchannel=none`, "-f", "null", "-"],
  ]);
  const m = /RMS level dB: (-?inf|-?[\d.]+)/.exec(stderr);
  if (!m) throw new Error(`no RMS level for ${file}`);
  return m[1]!.endsWith("inf") ? -Infinity : Number(m[1]);
}
