import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { MAX_VOICE_DISTANCE, MIN_WORD_RECALL, phraseText, wordRecall } from "../contracts/voice-consent";
import { readPcm16Wav } from "../gpu-runner/engines/diarization/pcm";
import { compareVoices, speechIn, type VoiceComparison } from "../gpu-runner/engines/diarization/voice-match";
import { LocalPocketSphinxEngine, pocketSphinxConfigFromEnv } from "../gpu-runner/engines/speech/local-pocketsphinx";
import { fmt, machineInfo, table } from "./lib";

/**
 * The consent check's two thresholds (contracts/voice-consent.ts), measured on synthetic voices:
 *
 * - Voice: each voice speaks a 13 s source passage and, separately, the consent phrase; every
 *   recording is compared with every source (gpu-runner/engines/diarization/voice-match.ts). The same
 *   voice must be within MAX_VOICE_DISTANCE, a different one beyond it. Baseline, measured in the
 *   same run: pitch alone (the two sides' median F0 apart, in the diarizer's 3.3 % pitch units), at
 *   the lowest threshold that accepts every same-voice pair.
 * - Words: PocketSphinx (told the phrase's words, as the check does) on each voice reading the
 *   phrase, and on the first voice reading six other words of the list; the share of the phrase's
 *   challenge words heard, against MIN_WORD_RECALL.
 *
 *   npx tsx bench/voice-consent.ts
 */
const run = promisify(execFile);
const signal = new AbortController().signal;

type Voice = { name: string; speak: (text: string, out: string, dir: string) => Promise<void> };
const espeak = (name: string, args: string[]): Voice => ({
  name,
  speak: async (text, out) => void (await run("espeak-ng", [...args, "-w", out, text])),
});
const VOICES: Voice[] = [
  espeak("en-us+klatt2", ["-v", "en-us+klatt2", "-s", "140"]),
  espeak("en-us+klatt3", ["-v", "en-us+klatt3", "-s", "140"]),
  espeak("en-us+klatt4", ["-v", "en-us+klatt4", "-s", "140"]),
  espeak("en-us", ["-v", "en-us"]),
  espeak("en+m3", ["-v", "en+m3"]),
  espeak("en+f3", ["-v", "en+f3"]),
  espeak("en+f4", ["-v", "en+f4"]),
  espeak("klatt2 -p 60", ["-v", "en-us+klatt2", "-s", "140", "-p", "60"]),
  {
    name: "festival slt",
    speak: async (text, out, dir) => {
      const file = path.join(dir, `${path.basename(out)}.txt`);
      await writeFile(file, text);
      await run("text2wave", ["-eval", "(voice_cmu_us_slt_arctic_hts)", "-o", out, file]);
    },
  },
];
const SOURCE =
  "Today we are looking at a chart of the northern coast drawn by hand. Almost three years, because the winter storms stopped the work for months at a time. And yet the harbours they drew are still in the right places today.";
const WORDS = ["garden", "falcon", "marble", "crystal", "ticket", "river"];
const OTHER_WORDS = ["apple", "rabbit", "pencil", "guitar", "rocket", "zebra"];
const PITCH_UNIT = 0.033;

async function wav(voice: Voice, text: string, name: string, dir: string): Promise<string> {
  const raw = path.join(dir, `${name}.raw.wav`);
  const out = path.join(dir, `${name}.wav`);
  await voice.speak(text, raw, dir);
  await run("ffmpeg", [
    "-v",
    "error",
    "-y",
    "-i",
    raw,
    "-af",
    "adelay=500,apad=pad_dur=0.5",
    "-ac",
    "1",
    "-ar",
    "16000",
    "-c:a",
    "pcm_s16le",
    out,
  ]);
  return out;
}

async function side(file: string) {
  const pcm = await readPcm16Wav(file);
  return { pcm, regions: await speechIn(pcm, signal) };
}

const pitchApart = (c: VoiceComparison) =>
  c.recordingF0Hz && c.subjectF0Hz ? Math.abs(Math.log(c.recordingF0Hz / c.subjectF0Hz)) / PITCH_UNIT : Number.NaN;

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-consent-"));
  try {
    const speech = new LocalPocketSphinxEngine(pocketSphinxConfigFromEnv(process.env));
    const phrase = phraseText(WORDS, "Ada Lovelace");
    const sources = [];
    const recordings = [];
    const recall: string[][] = [];
    for (const [i, v] of VOICES.entries()) {
      sources.push(await side(await wav(v, SOURCE, `source-${i}`, dir)));
      const rec = await wav(v, phrase, `phrase-${i}`, dir);
      recordings.push(await side(rec));
      const heard = (await speech.transcribe(rec, { language: "en", signal, vocabulary: [...WORDS, "Ada Lovelace"], workDir: dir })).words;
      const r = wordRecall(WORDS, heard.map((w) => w.word).join(" ")).recall;
      recall.push([v.name, "the phrase", fmt(r, 2), r >= MIN_WORD_RECALL ? "heard" : "not heard"]);
    }
    const wrong = await wav(VOICES[0]!, phraseText(OTHER_WORDS, "Ada Lovelace"), "wrong", dir);
    const heardWrong = (await speech.transcribe(wrong, { language: "en", signal, vocabulary: [...WORDS, "Ada Lovelace"], workDir: dir }))
      .words;
    const rw = wordRecall(WORDS, heardWrong.map((w) => w.word).join(" ")).recall;
    recall.push([VOICES[0]!.name, "six other words", fmt(rw, 2), rw >= MIN_WORD_RECALL ? "heard" : "not heard"]);

    const full: number[][] = [];
    const pitch: number[][] = [];
    for (const r of recordings) {
      const row = sources.map((s) => compareVoices(r, s, signal));
      full.push(row.map((c) => c.distance ?? Number.NaN));
      pitch.push(row.map(pitchApart));
    }
    const names = VOICES.map((v) => v.name);
    const matrix = (m: number[][]) =>
      table(
        ["recording \\ source", ...names],
        m.map((row, i) => [names[i]!, ...row.map((x) => fmt(x, 2))]),
      );
    const score = (m: number[][], threshold: number) => {
      let same = 0;
      let differentRefused = 0;
      for (let i = 0; i < m.length; i++)
        for (let j = 0; j < m.length; j++) {
          if (i === j) same += m[i]![j]! <= threshold ? 1 : 0;
          else differentRefused += m[i]![j]! > threshold ? 1 : 0;
        }
      const n = m.length;
      return `same voice accepted ${same}/${n}, different voice refused ${differentRefused}/${n * (n - 1)}`;
    };
    const pitchThreshold = Math.max(...pitch.map((row, i) => row[i]!));
    console.log(`Voice consent thresholds (${machineInfo()})\n`);
    console.log(`Voice distance (features of the local diarizer), threshold ${MAX_VOICE_DISTANCE}:\n${matrix(full)}\n`);
    console.log(`Baseline, pitch alone (median F0 apart in 3.3 % units):\n${matrix(pitch)}\n`);
    console.log(
      table(
        ["method", "threshold", "result"],
        [
          ["MFCC + pitch distance", fmt(MAX_VOICE_DISTANCE, 2), score(full, MAX_VOICE_DISTANCE)],
          ["pitch alone (baseline)", fmt(pitchThreshold, 2), score(pitch, pitchThreshold)],
        ],
      ),
    );
    console.log(`\nWord recall of the challenge words (PocketSphinx), threshold ${MIN_WORD_RECALL}:\n`);
    console.log(table(["voice", "reading", "recall", "verdict"], recall));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
