import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { PiiEntityType } from "../../contracts/redaction";
import type { Word } from "../../contracts/transcript";
import { LocalPocketSphinxEngine, pocketSphinxConfigFromEnv } from "../../gpu-runner/engines/speech/local-pocketsphinx";
import { piiSentences, spokenParts, type LabelledSentence } from "./pii-set";
import { addNoise, buildOnce, concatPcm, RATE, speak, wavBytes, type TtsVoice } from "./synthetic-speech";

/**
 * The labelled set spoken and transcribed: each English sentence of pii-set.ts said by eSpeak NG
 * (`en-us+klatt2`; every third sentence by Festival's `slt`, a second, independent voice), its
 * parts synthesised one by one and joined with a short breath, so each planted entity's time in
 * the recording is known exactly; sentences 0.8 s apart in one 16 kHz WAV with faint room noise.
 * The project's PocketSphinx engine transcribes it (two halves at once, one per core), so the
 * recogniser's errors are part of what the redaction is measured on. Built once per machine and
 * cached in the temp directory (about a minute on 2 cores).
 */
const BREATH_SEC = 0.12;
const PAUSE_SEC = 0.8;
const FESTIVAL: TtsVoice = { engine: "festival", voice: "cmu_us_slt_arctic_hts" };
const ESPEAK: TtsVoice = { engine: "espeak-ng", voice: "en-us+klatt2" };
/** The cache is named after what is spoken, so a change to the set builds a new one. */
const cacheDir = (sentences: readonly LabelledSentence[]): string =>
  path.join(
    os.tmpdir(),
    `media-jobs-pii-spoken-set-${createHash("sha256").update(JSON.stringify({ sentences, BREATH_SEC, PAUSE_SEC, FESTIVAL, ESPEAK })).digest("hex").slice(0, 12)}`,
  );

export interface SpokenEntity {
  type: PiiEntityType;
  start: number;
  end: number;
}

export interface SpokenSentence {
  sentence: LabelledSentence;
  voice: "espeak-ng" | "festival";
  start: number;
  end: number;
  entities: SpokenEntity[];
}

export interface SpokenPiiSet {
  wav: string;
  durationSec: number;
  sentences: SpokenSentence[];
  /** PocketSphinx's words for the whole recording. */
  words: Word[];
  engine: string;
  model: string;
}

/** Sentences per recall-goal type in the spoken set (the others get two thirds as many). */
export const SPOKEN_PER_TYPE = 12;

export async function spokenPiiSet(): Promise<SpokenPiiSet> {
  const sentences = piiSentences({ perType: SPOKEN_PER_TYPE, foreign: false });
  const dir = cacheDir(sentences);
  await buildOnce(dir, ["set.wav", "set.json"], (scratch) => build(sentences, scratch));
  const truth = JSON.parse(await readFile(path.join(dir, "set.json"), "utf8")) as Omit<SpokenPiiSet, "wav">;
  return { ...truth, wav: path.join(dir, "set.wav") };
}

async function build(sentences: readonly LabelledSentence[], scratch: string): Promise<void> {
  // Synthesis two at a time (2 cores), each sentence into its own samples.
  const rendered: Array<{ samples: Int16Array; entities: SpokenEntity[]; voice: SpokenSentence["voice"] }> = [];
  const render = async (i: number) => {
    const voice = i % 3 === 2 ? FESTIVAL : ESPEAK;
    const pieces: Int16Array[] = [];
    const entities: SpokenEntity[] = [];
    let at = 0;
    for (const [k, part] of spokenParts(sentences[i]!).entries()) {
      if (!part.text.trim()) continue;
      if (pieces.length) {
        pieces.push(new Int16Array(Math.round(BREATH_SEC * RATE)));
        at += Math.round(BREATH_SEC * RATE);
      }
      const samples = await speak(voice, part.text, scratch, `s${i}-p${k}`);
      if (part.entity) entities.push({ type: part.entity, start: at / RATE, end: (at + samples.length) / RATE });
      pieces.push(samples);
      at += samples.length;
    }
    rendered[i] = { samples: concatPcm(pieces), entities, voice: voice.engine };
  };
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < sentences.length) await render(next++);
    }),
  );

  const halves: Array<{ parts: Int16Array[]; offset: number }> = [];
  const spoken: SpokenSentence[] = [];
  let at = Math.round(0.5 * RATE);
  const cut = Math.ceil(sentences.length / 2);
  let half: { parts: Int16Array[]; offset: number } = { parts: [new Int16Array(at)], offset: 0 };
  halves.push(half);
  rendered.forEach((r, i) => {
    if (i === cut) {
      half = { parts: [], offset: at };
      halves.push(half);
    }
    const start = at / RATE;
    spoken.push({
      sentence: sentences[i]!,
      voice: r.voice,
      start,
      end: start + r.samples.length / RATE,
      entities: r.entities.map((e) => ({ ...e, start: start + e.start, end: start + e.end })),
    });
    const pause = new Int16Array(Math.round(PAUSE_SEC * RATE));
    half.parts.push(r.samples, pause);
    at += r.samples.length + pause.length;
  });
  const all = concatPcm(halves.flatMap((h) => h.parts));
  addNoise(all);
  await writeFile(path.join(scratch, "set.wav"), wavBytes(all));

  // Each half decoded on its own core; its words moved to the whole recording's time.
  const engine = new LocalPocketSphinxEngine(pocketSphinxConfigFromEnv({}));
  const signal = AbortSignal.timeout(600_000);
  const decoded = await Promise.all(
    halves.map(async (h, k) => {
      const len = h.parts.reduce((n, p) => n + p.length, 0);
      const samples = all.slice(Math.round(h.offset), Math.round(h.offset) + len);
      const file = path.join(scratch, `half-${k}.wav`);
      await writeFile(file, wavBytes(samples));
      const r = await engine.transcribe(file, { signal, language: "en" });
      return r.words.map((w) => ({ ...w, start: w.start + h.offset / RATE, end: w.end + h.offset / RATE }));
    }),
  );
  const truth: Omit<SpokenPiiSet, "wav"> = {
    durationSec: all.length / RATE,
    sentences: spoken,
    words: decoded.flat(),
    engine: engine.engine,
    model: engine.model,
  };
  await writeFile(path.join(scratch, "set.json"), JSON.stringify(truth));
}
