import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Speech synthesised on this machine for the diarization recordings (two-voice.ts,
 * conversations.ts): Festival and eSpeak NG voices rendered to 16 kHz mono s16 samples, trimmed to
 * where speech is audible so truth turns are where speech really is, and the WAV files those
 * recordings are cached as.
 */
const run = promisify(execFile);
export const RATE = 16_000;

/** A voice of either synthesiser; eSpeak NG's `pitch` (0–99, default 50) moves the voice's base pitch. */
export type TtsVoice = { engine: "festival"; voice: string } | { engine: "espeak-ng"; voice: string; pitch?: number };

/** `text` spoken by `voice`, trimmed to its audible part. `scratch` is a directory for the synthesiser's file. */
export async function speak(voice: TtsVoice, text: string, scratch: string, name: string): Promise<Int16Array> {
  const raw = path.join(scratch, `${name}.wav`);
  if (voice.engine === "festival") {
    const textFile = path.join(scratch, `${name}.txt`);
    await writeFile(textFile, text);
    await run("text2wave", ["-eval", `(voice_${voice.voice})`, "-o", raw, textFile]);
  } else {
    const pitch = voice.pitch === undefined ? [] : ["-p", String(voice.pitch)];
    await run("espeak-ng", ["-v", voice.voice, ...pitch, "-w", raw, text]);
  }
  return trimSilence(await toPcm16(raw));
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

/** Recordings one after another, as one. */
export function concatPcm(parts: readonly Int16Array[]): Int16Array {
  const samples = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    samples.set(p, offset);
    offset += p.length;
  }
  return samples;
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

/**
 * Files built once per machine into `dir`: `build` writes every name in `files` into a private
 * scratch directory, which are then renamed into place, so parallel test files race harmlessly.
 */
export async function buildOnce(dir: string, files: readonly string[], build: (scratch: string) => Promise<void>): Promise<void> {
  if (files.every((f) => existsSync(path.join(dir, f)))) return;
  await mkdir(dir, { recursive: true });
  const scratch = path.join(dir, `.${process.pid}-${Math.random().toString(36).slice(2)}`);
  await mkdir(scratch);
  try {
    await build(scratch);
    for (const f of files) await rename(path.join(scratch, f), path.join(dir, f));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
