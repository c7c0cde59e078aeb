import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { attribution, type AttributionScore } from "./diarization-score";
import { addNoise, buildOnce, concatPcm, RATE, speak, wavBytes, type TtsVoice } from "./synthetic-speech";

/**
 * A two-voice conversation for diarization tests, synthesised on this machine: Festival's US
 * English HTS voice `slt` (female) and eSpeak NG's `en+m3` (male) take turns, eight turns of 2–6 s
 * with pauses of 0.35–0.8 s between them. Each utterance is trimmed to its first and last audible
 * sample, so the truth turns are where speech really is. Built once per machine and cached in the
 * temp directory (built under a private name and renamed into place, so parallel files race
 * harmlessly); `silentWav` is a recording with no speech at all.
 */
const CACHE = path.join(os.tmpdir(), "media-jobs-two-voice-v1");

export type Voice = "slt" | "m3";

export interface TruthTurn {
  start: number;
  end: number;
  voice: Voice;
}

export interface TwoVoiceSample {
  /** 16 kHz mono s16 WAV. */
  wav: string;
  truth: TruthTurn[];
  durationSec: number;
}

export const TWO_VOICE_SCRIPT: readonly { voice: Voice; text: string; pauseAfterSec: number }[] = [
  { voice: "slt", text: "Good morning, and welcome back to the show about old maps.", pauseAfterSec: 0.5 },
  { voice: "m3", text: "Thanks for having me again, it is always a pleasure to be here.", pauseAfterSec: 0.4 },
  { voice: "slt", text: "Today we are looking at a chart of the northern coast drawn by hand.", pauseAfterSec: 0.6 },
  { voice: "m3", text: "Yes, the surveyors walked every mile of that shore with a compass and a chain.", pauseAfterSec: 0.35 },
  { voice: "slt", text: "How long did that survey take them, from start to finish?", pauseAfterSec: 0.8 },
  { voice: "m3", text: "Almost three years, because the winter storms stopped the work for months at a time.", pauseAfterSec: 0.45 },
  { voice: "slt", text: "And yet the harbours they drew are still in the right places today.", pauseAfterSec: 0.5 },
  { voice: "m3", text: "That is the remarkable part, and it is why sailors trusted these charts.", pauseAfterSec: 0.5 },
];

/** The two-voice conversation (built on first use). */
export async function twoVoiceSample(): Promise<TwoVoiceSample> {
  await buildOnce(CACHE, ["two-voice.wav", "two-voice.json"], async (scratch) => {
    const { samples, truth } = await synthesise(scratch);
    await writeFile(path.join(scratch, "two-voice.wav"), wavBytes(samples));
    await writeFile(path.join(scratch, "two-voice.json"), JSON.stringify({ truth, durationSec: samples.length / RATE }));
  });
  const { truth, durationSec } = JSON.parse(await readFile(path.join(CACHE, "two-voice.json"), "utf8")) as {
    truth: TruthTurn[];
    durationSec: number;
  };
  return { wav: path.join(CACHE, "two-voice.wav"), truth, durationSec };
}

/** `seconds` of faint noise (−60 dBFS): no speech. */
export async function silentWav(seconds = 8): Promise<string> {
  const name = `silence-${seconds}s.wav`;
  await buildOnce(CACHE, [name], async (scratch) => {
    const samples = new Int16Array(seconds * RATE);
    addNoise(samples);
    await writeFile(path.join(scratch, name), wavBytes(samples));
  });
  return path.join(CACHE, name);
}

const VOICES: Record<Voice, TtsVoice> = {
  slt: { engine: "festival", voice: "cmu_us_slt_arctic_hts" },
  m3: { engine: "espeak-ng", voice: "en+m3" },
};

async function synthesise(dir: string): Promise<{ samples: Int16Array; truth: TruthTurn[] }> {
  const parts: Int16Array[] = [];
  const truth: TruthTurn[] = [];
  let at = Math.round(0.5 * RATE);
  parts.push(new Int16Array(at));
  for (const [i, line] of TWO_VOICE_SCRIPT.entries()) {
    const utterance = await speak(VOICES[line.voice], line.text, dir, `line-${i}`);
    truth.push({ start: at / RATE, end: (at + utterance.length) / RATE, voice: line.voice });
    const pause = new Int16Array(Math.round(line.pauseAfterSec * RATE));
    parts.push(utterance, pause);
    at += utterance.length + pause.length;
  }
  const samples = concatPcm(parts);
  addNoise(samples);
  return { samples, truth };
}

/** The attributed-time score (diarization-score.ts) of turns against the conversation's truth. */
export function scoreAttribution(
  truth: readonly TruthTurn[],
  turns: readonly { start: number; end: number; speaker: string }[],
): AttributionScore {
  return attribution(
    truth.map((t) => ({ start: t.start, end: t.end, speaker: t.voice })),
    turns,
  );
}
