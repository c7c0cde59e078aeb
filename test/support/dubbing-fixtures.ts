import { existsSync } from "node:fs";
import { mkdir, rename } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TranslationSource } from "../../contracts/services/translation";
import { INPUT_GUARD, runToolOk } from "../../gpu-runner/media/spawn";
import { TWO_VOICE_SCRIPT, twoVoiceSample } from "./two-voice";

/**
 * A video to dub: the two-voice conversation (two TTS voices taking turns) under a plain moving
 * picture, with its truth turns as the transcript's segments (one per utterance). Cached like the
 * recording itself.
 */
export interface DubbingSource {
  video: string;
  durationSec: number;
  transcript: TranslationSource;
}

export async function twoVoiceVideo(): Promise<DubbingSource> {
  const sample = await twoVoiceSample();
  const video = path.join(os.tmpdir(), "media-jobs-two-voice-v1", "two-voice.mp4");
  if (!existsSync(video)) {
    await mkdir(path.dirname(video), { recursive: true });
    const tmp = `${video}.${process.pid}.mp4`;
    await runToolOk("ffmpeg", [
      ...["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", ...INPUT_GUARD, "-i", "testsrc2=s=320x240:r=15"],
      ...[
        ...INPUT_GUARD,
        "-i",
        sample.wav,
        "-shortest",
        "-c:v",
        "libx264",
        "-preset",
        "ultrafast",
        "-pix_fmt",
        "yuv420p",
        "-c:a",
        "aac",
        "-ar",
        "48000",
        tmp,
      ],
    ]);
    await rename(tmp, video);
  }
  return {
    video,
    durationSec: sample.durationSec,
    transcript: {
      textSourceId: "txt_dub",
      language: "en",
      durationSec: sample.durationSec,
      revision: 1,
      speakers: [],
      sourceLayer: "current",
      segments: sample.truth.map((t, id) => ({ id, start: t.start, end: t.end, text: TWO_VOICE_SCRIPT[id]!.text })),
      glossary: [],
    },
  };
}
