import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

/**
 * A two-voice conversation for diarization tests, synthesised on this machine: Festival's US
 * English HTS voice `slt` (female) and eSpeak NG's `en+m3` (male) take turns, eight turns of 2–6 s
 * with pauses of 0.35–0.8 s between them. Each utterance is trimmed to its first and last audible
 * sample, so the truth turns are where speech really is. Built once per machine and cached in the
 * temp directory (built under a private name and renamed into place, so parallel files race
 * harmlessly); `silentWav` is a recording with no speech at all.
 */
const run = promisify(execFile);
export const RATE = 16_000;
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
  const wav = path.join(CACHE, "two-voice.wav");
  const truthFile = path.join(CACHE, "two-voice.json");
  if (!existsSync(wav) || !existsSync(truthFile)) {
    await mkdir(CACHE, { recursive: true });
    const tmp = path.join(CACHE, `.${process.pid}-${Math.random().toString(36).slice(2)}`);
    await mkdir(tmp);
    try {
      const { samples, truth } = await synthesise(tmp);
      await writeFile(path.join(tmp, "two-voice.wav"), wavBytes(samples));
      await writeFile(path.join(tmp, "two-voice.json"), JSON.stringify({ truth, durationSec: samples.length / RATE }));
      await rename(path.join(tmp, "two-voice.wav"), wav);
      await rename(path.join(tmp, "two-voice.json"), truthFile);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  const { truth, durationSec } = JSON.parse(await readFile(truthFile, "utf8")) as { truth: TruthTurn[]; durationSec: number };
  return { wav, truth, durationSec };
}

/** `seconds` of faint noise (−60 dBFS): no speech. */
export async function silentWav(seconds = 8): Promise<string> {
  const file = path.join(CACHE, `silence-${seconds}s.wav`);
  if (existsSync(file)) return file;
  await mkdir(CACHE, { recursive: true });
  const samples = new Int16Array(seconds * RATE);
  addNoise(samples);
  const tmp = `${file}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  await writeFile(tmp, wavBytes(samples));
  await rename(tmp, file);
  return file;
}

async function synthesise(dir: string): Promise<{ samples: Int16Array; truth: TruthTurn[] }> {
  const parts: Int16Array[] = [];
  const truth: TruthTurn[] = [];
  let at = Math.round(0.5 * RATE);
  parts.push(new Int16Array(at));
  for (const [i, line] of TWO_VOICE_SCRIPT.entries()) {
    const raw = path.join(dir, `line-${i}.wav`);
    if (line.voice === "slt") {
      const text = path.join(dir, `line-${i}.txt`);
      await writeFile(text, line.text);
      await run("text2wave", ["-eval", "(voice_cmu_us_slt_arctic_hts)", "-o", raw, text]);
    } else await run("espeak-ng", ["-v", "en+m3", "-w", raw, line.text]);
    const utterance = trimSilence(await toPcm16(raw));
    truth.push({ start: at / RATE, end: (at + utterance.length) / RATE, voice: line.voice });
    const pause = new Int16Array(Math.round(line.pauseAfterSec * RATE));
    parts.push(utterance, pause);
    at += utterance.length + pause.length;
  }
  const samples = new Int16Array(at);
  let offset = 0;
  for (const p of parts) {
    samples.set(p, offset);
    offset += p.length;
  }
  addNoise(samples);
  return { samples, truth };
}

/** Any input as 16 kHz mono s16 samples (ffmpeg). */
export async function toPcm16(file: string): Promise<Int16Array> {
  const { stdout } = await run("ffmpeg", ["-v", "error", "-i", file, "-ac", "1", "-ar", String(RATE), "-f", "s16le", "pipe:1"], {
    encoding: "buffer",
    maxBuffer: 64 * 1024 * 1024,
  });
  return new Int16Array(stdout.buffer.slice(stdout.byteOffset, stdout.byteOffset + stdout.length - (stdout.length % 2)));
}

/** From the first to the last sample above −40 dBFS. */
export function trimSilence(s: Int16Array): Int16Array {
  const level = 328;
  let a = 0;
  let b = s.length;
  while (a < b && Math.abs(s[a]!) < level) a++;
  while (b > a && Math.abs(s[b - 1]!) < level) b--;
  return s.slice(a, b);
}

/** Deterministic faint noise, so pauses are a real (quiet) room rather than digital zero. */
export function addNoise(s: Int16Array): void {
  let seed = 12345;
  for (let i = 0; i < s.length; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    s[i] = Math.max(-32768, Math.min(32767, s[i]! + Math.round(((seed / 0x7fffffff) * 2 - 1) * 33)));
  }
}

export function wavBytes(samples: Int16Array): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "ascii");
  header.writeUInt32LE(36 + samples.length * 2, 4);
  header.write("WAVE", 8, "ascii");
  header.write("fmt ", 12, "ascii");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "ascii");
  header.writeUInt32LE(samples.length * 2, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}

export interface AttributionScore {
  /** Of the time the engine gave to a speaker, the share given to the right one (best one-to-one label mapping). */
  accuracy: number;
  /** Of the time someone really speaks, the share the engine gave to any speaker. */
  coverage: number;
}

/** Scores turns against the truth on a 10 ms grid. */
export function scoreAttribution(
  truth: readonly TruthTurn[],
  turns: readonly { start: number; end: number; speaker: string }[],
): AttributionScore {
  const step = 0.01;
  const end = Math.max(...truth.map((t) => t.end), ...turns.map((t) => t.end), 0);
  const at = <T extends { start: number; end: number }>(list: readonly T[], t: number) => list.find((x) => t >= x.start && t < x.end);
  const pairs = new Map<string, number>();
  let attributed = 0;
  let spoken = 0;
  let covered = 0;
  for (let t = step / 2; t < end; t += step) {
    const real = at(truth, t)?.voice;
    const said = at(turns, t)?.speaker;
    if (said !== undefined) attributed++;
    if (real !== undefined) {
      spoken++;
      if (said !== undefined) covered++;
    }
    if (real !== undefined && said !== undefined) pairs.set(`${said}|${real}`, (pairs.get(`${said}|${real}`) ?? 0) + 1);
  }
  const labels = [...new Set(turns.map((t) => t.speaker))];
  const voices = [...new Set(truth.map((t) => t.voice))];
  let best = 0;
  // One-to-one mappings of labels onto voices (few of each): try them all.
  const search = (i: number, used: Set<Voice>, sum: number) => {
    if (i === labels.length) {
      best = Math.max(best, sum);
      return;
    }
    search(i + 1, used, sum);
    for (const v of voices) {
      if (used.has(v)) continue;
      search(i + 1, new Set([...used, v]), sum + (pairs.get(`${labels[i]}|${v}`) ?? 0));
    }
  };
  search(0, new Set(), 0);
  return { accuracy: attributed ? best / attributed : 0, coverage: spoken ? covered / spoken : 0 };
}
