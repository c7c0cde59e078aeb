import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { speak, wavBytes } from "./synthetic-speech";

/**
 * A short video in which a speaker says who they are (Festival's HTS voice: PocketSphinx hears every
 * word of it, where it mishears the name in eSpeak NG's voices), for end-to-end tests of redaction:
 * the transcript must come out without the name. Built once per machine and cached under the temp dir.
 */
export const PII_SPEECH_TEXT = "Hello everyone. My name is John Smith. I live in London and I like to walk.";

export async function piiSpeechVideo(): Promise<string> {
  const video = path.join(os.tmpdir(), "media-jobs-pii-speech-v2", "pii-speech.mp4");
  if (existsSync(video)) return video;
  const dir = path.dirname(video);
  await mkdir(dir, { recursive: true });
  const samples = await speak({ engine: "festival", voice: "cmu_us_slt_arctic_hts" }, PII_SPEECH_TEXT, dir, "speech");
  const wav = path.join(dir, "speech-16k.wav");
  await writeFile(wav, wavBytes(samples));
  const tmp = `${video}.${process.pid}.mp4`;
  await runToolOk("ffmpeg", [
    ...["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", ...INPUT_GUARD, "-i", "testsrc2=s=320x240:r=15"],
    ...[...INPUT_GUARD, "-i", wav, "-shortest", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", tmp],
  ]);
  await rename(tmp, video);
  await rm(wav, { force: true });
  return video;
}
