import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { DEFAULT_SETTINGS } from "../../contracts/settings";
import { openSource, type AcceptedSource } from "../../gpu-runner/media/source";
import { twoVoiceSample } from "./two-voice";
import { buildAudioOnly, buildCardReel, buildFaceReel, buildOverLimit, buildSpeechWav, buildVideo } from "../../scripts/make-sample-media";

/**
 * Media files for tests, built once per machine with the sample-media script's builders and cached
 * in the temp directory (parallel test files race harmlessly: each builds to a private name and
 * renames into place).
 */
const CACHE = path.join(os.tmpdir(), "media-jobs-test-fixtures-v2");

async function cached(name: string, build: (out: string) => Promise<void>): Promise<string> {
  const target = path.join(CACHE, name);
  if (existsSync(target)) return target;
  await mkdir(CACHE, { recursive: true });
  const tmp = path.join(CACHE, `.${process.pid}-${Math.random().toString(36).slice(2)}-${name}`);
  await build(tmp);
  await rename(tmp, target);
  return target;
}

/** ~29 s of LibriVox speech (the five testdata recordings), 16 kHz mono WAV. */
export const speechWav = (): Promise<string> => cached("speech.wav", async (out) => void (await buildSpeechWav(out)));

/** The speech under three test cards (cuts at 10 s and 20 s): mp4, h264 + aac. */
export const speechVideo = async (): Promise<string> => {
  const wav = await speechWav();
  return cached("speech.mp4", async (out) => {
    const reel = `${out}.cards.mp4`;
    await buildCardReel(reel, { cards: 3, sceneSec: 10 });
    await buildVideo(out, wav, reel);
    await rm(reel, { force: true });
  });
};

/**
 * The speech over real faces (scripts/make-sample-media.ts `buildFaceReel`): `moving`, one face
 * sliding across the frame; `interview`, close-ups of two people alternating every 8 s.
 */
export const faceVideo = async (kind: "moving" | "interview"): Promise<string> => {
  const wav = await speechWav();
  return cached(`faces-${kind}.mp4`, async (out) => {
    const reel = `${out}.reel.mp4`;
    await buildFaceReel(reel, { kind, durationSec: 29, sceneSec: 8 });
    await buildVideo(out, wav, reel);
    await rm(reel, { force: true });
  });
};

/** The same speech without a video stream. */
export const speechAudioOnly = async (): Promise<string> => {
  const wav = await speechWav();
  return cached("speech-audio-only.mp4", (out) => buildAudioOnly(out, wav));
};

/** The two-voice conversation (./two-voice.ts) without a video stream: a source a transcription job takes, with two speakers to tell apart. */
export const twoVoiceAudioOnly = async (): Promise<string> => {
  const { wav } = await twoVoiceSample();
  return cached("two-voice-audio-only.mp4", (out) => buildAudioOnly(out, wav));
};

/** 3601 s of silence, audio only (~230 kB). */
export const overLimitFile = (): Promise<string> => cached("over-limit-3601s.mp4", (out) => buildOverLimit(out, 3601));

/** Bytes that no demuxer accepts. */
export const garbageFile = (): Promise<string> =>
  cached("garbage.mp4", (out) => writeFile(out, Buffer.from("this is not a video file, just text pretending to be one\n".repeat(200))));

/** A file opened as a video handler opens a customer's source (media/source.ts), within the platform's default bounds. */
export const acceptedVideo = (file: string): Promise<AcceptedSource> =>
  openSource(file, { kind: "video", limits: DEFAULT_SETTINGS.runner, signal: AbortSignal.timeout(60_000) });

export const LIBRIVOX_0880 = "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0880.wav";
