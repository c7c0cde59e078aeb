import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { addNoise, concatPcm, RATE, toPcm16, trimSilence, wavBytes } from "./synthetic-speech";

/**
 * A vocabulary test set, synthesised on this machine: 48 sentences of everyday words around names
 * of people, places and products (the terms), most of them absent from PocketSphinx's dictionary
 * (cmudict-en-us), the others in it but rare. Sentences alternate between Festival's US English
 * HTS voice `slt` and eSpeak NG's `en-us+klatt2` at 140 words a minute (eSpeak's default voices
 * are too far from natural speech for the recogniser to be measured on), each trimmed to its
 * audible part, with 0.7 s of quiet room between them, in one 16 kHz mono WAV. Built once per
 * machine and cached in the temp directory, under a private name renamed into place, as
 * two-voice.ts does.
 *
 * eSpeak NG also makes the pronunciations the local engine adds for unknown terms, so its
 * sentences are the friendly half of the set; Festival's voice (its own lexicon and letter-to-sound
 * rules) is the independent half. The benchmark reports both.
 */
const run = promisify(execFile);
const CACHE = path.join(os.tmpdir(), "media-jobs-vocabulary-set-v1");
const PAUSE_SEC = 0.7;

export type SetVoice = "slt" | "klatt2";

export interface SetSentence {
  text: string;
  /** Terms as they are spelt in `text`, in order (a term spoken twice is listed twice). */
  terms: readonly string[];
}

export const VOCABULARY_SENTENCES: readonly SetSentence[] = [
  { text: "Our team moved the billing service to Kubernetes last spring.", terms: ["Kubernetes"] },
  { text: "Doctor Okonkwo will present the new results on Monday morning.", terms: ["Okonkwo"] },
  { text: "The dashboards in Grafana show the traffic for every region.", terms: ["Grafana"] },
  { text: "We describe all of our servers with Terraform and review each change.", terms: ["Terraform"] },
  { text: "The support tickets arrive in Zendesk and are answered within a day.", terms: ["Zendesk"] },
  { text: "The designers shared the new screens in Figma this afternoon.", terms: ["Figma"] },
  { text: "She opened a small shop on Shopify to sell her paintings.", terms: ["Shopify"] },
  { text: "Every task for the launch is tracked on a Trello board.", terms: ["Trello"] },
  { text: "The database for the mobile app runs on Supabase.", terms: ["Supabase"] },
  { text: "The marketing site is deployed to Netlify after every change.", terms: ["Netlify"] },
  { text: "Search results come from Elasticsearch and the logs go to Kibana.", terms: ["Elasticsearch", "Kibana"] },
  { text: "The web application is written in Django and the reports use NumPy.", terms: ["Django", "NumPy"] },
  { text: "He plotted the results in a Jupyter notebook with Matplotlib.", terms: ["Jupyter", "Matplotlib"] },
  { text: "The new phones from Xiaomi and Huawei were cheaper than last year.", terms: ["Xiaomi", "Huawei"] },
  { text: "My old Lenovo laptop still works after seven years.", terms: ["Lenovo"] },
  { text: "She posted the video on TikTok and it was seen by thousands.", terms: ["TikTok"] },
  { text: "The groceries were delivered by Instacart before noon.", terms: ["Instacart"] },
  { text: "Dinner arrived late because the DoorDash driver got lost.", terms: ["DoorDash"] },
  { text: "My Fitbit counted more steps than my Garmin watch did.", terms: ["Fitbit", "Garmin"] },
  { text: "He records every run on Strava and shares it with his friends.", terms: ["Strava"] },
  { text: "I practise Spanish on Duolingo for ten minutes every day.", terms: ["Duolingo"] },
  { text: "She finished two courses on Coursera and one on Udemy.", terms: ["Coursera", "Udemy"] },
  { text: "The winning model in the Kaggle competition was surprisingly simple.", terms: ["Kaggle"] },
  { text: "The weekly meeting moved from Webex to a room on the second floor.", terms: ["Webex"] },
  { text: "Everyone signs in through Okta before opening the internal tools.", terms: ["Okta"] },
  { text: "The text messages are sent through Twilio from our servers.", terms: ["Twilio"] },
  { text: "Customers can pay later with Klarna when they check out.", terms: ["Klarna"] },
  { text: "He keeps his travel money in a Revolut account.", terms: ["Revolut"] },
  { text: "Professor Adebayo Okafor leads the research group in Lagos.", terms: ["Adebayo Okafor"] },
  { text: "Priya Ramaswamy wrote the first version of the scheduler.", terms: ["Priya Ramaswamy"] },
  { text: "The report by Lars Lindqvist was published in the spring.", terms: ["Lindqvist"] },
  { text: "Mister Balogun and Miss Oyelaran joined the board in January.", terms: ["Balogun", "Oyelaran"] },
  { text: "We took the train from Thessaloniki to the coast.", terms: ["Thessaloniki"] },
  { text: "The conference this year is in Bratislava, near the river.", terms: ["Bratislava"] },
  { text: "The mobile app is written in Kotlin and the server in Java.", terms: ["Kotlin"] },
  { text: "Our main database is Postgres, and the cache is Redis.", terms: ["Postgres", "Redis"] },
  { text: "We replaced the old Mongo cluster with a single server.", terms: ["Mongo"] },
  { text: "The deployment scripts were rewritten with Ansible last month.", terms: ["Ansible"] },
  { text: "The front end was rebuilt with Svelte and hosted on Vercel.", terms: ["Svelte", "Vercel"] },
  { text: "The messages flow through Kafka into the warehouse every night.", terms: ["Kafka"] },
  { text: "Mister Zielinski and Miss Kaczmarek signed the contract.", terms: ["Zielinski", "Kaczmarek"] },
  { text: "The flight to Ljubljana was delayed by two hours.", terms: ["Ljubljana"] },
  { text: "She studied in Tbilisi before moving to Valparaiso.", terms: ["Tbilisi", "Valparaiso"] },
  { text: "Doctor Nakamura and Doctor Takahashi agreed on the plan.", terms: ["Nakamura", "Takahashi"] },
  { text: "The sensor board is an Arduino connected to a laptop.", terms: ["Arduino"] },
  { text: "The novel by Achebe was on the reading list this term.", terms: ["Achebe"] },
  { text: "The alerts from Grafana now reach the team that runs Kubernetes.", terms: ["Grafana", "Kubernetes"] },
  { text: "Doctor Okonkwo and Priya Ramaswamy met in Tbilisi last summer.", terms: ["Okonkwo", "Priya Ramaswamy", "Tbilisi"] },
];

/** Every distinct term of the set, as a customer would pass them in `options.vocabulary`. */
export const VOCABULARY_TERMS: readonly string[] = [...new Set(VOCABULARY_SENTENCES.flatMap((s) => s.terms))];

export interface SpokenSentence extends SetSentence {
  voice: SetVoice;
  /** Where the sentence is audible in the set's WAV. */
  start: number;
  end: number;
}

export interface VocabularySet {
  /** 16 kHz mono s16 WAV of every sentence in order. */
  wav: string;
  sentences: SpokenSentence[];
  durationSec: number;
}

export const voiceOf = (i: number): SetVoice => (i % 2 === 0 ? "slt" : "klatt2");

/** The set (built on first use). */
export async function vocabularySet(): Promise<VocabularySet> {
  const wav = path.join(CACHE, "vocabulary-set.wav");
  const truthFile = path.join(CACHE, "vocabulary-set.json");
  if (!existsSync(wav) || !existsSync(truthFile)) {
    await mkdir(CACHE, { recursive: true });
    const tmp = path.join(CACHE, `.${process.pid}-${Math.random().toString(36).slice(2)}`);
    await mkdir(tmp);
    try {
      const { samples, sentences } = await synthesise(tmp);
      await writeFile(path.join(tmp, "set.wav"), wavBytes(samples));
      await writeFile(path.join(tmp, "set.json"), JSON.stringify({ sentences, durationSec: samples.length / RATE }));
      await rename(path.join(tmp, "set.wav"), wav);
      await rename(path.join(tmp, "set.json"), truthFile);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
  const { sentences, durationSec } = JSON.parse(await readFile(truthFile, "utf8")) as Omit<VocabularySet, "wav">;
  return { wav, sentences, durationSec };
}

/** One sentence alone, as its own WAV in the cache (for tests that need a short recording). */
export async function sentenceWav(index: number): Promise<string> {
  const file = path.join(CACHE, `sentence-${index}.wav`);
  if (existsSync(file)) return file;
  await mkdir(CACHE, { recursive: true });
  const tmp = path.join(CACHE, `.${process.pid}-${Math.random().toString(36).slice(2)}`);
  await mkdir(tmp);
  try {
    const utterance = await speak(VOCABULARY_SENTENCES[index]!.text, voiceOf(index), tmp, "line");
    const samples = new Int16Array(utterance.length + RATE);
    samples.set(utterance, RATE / 2);
    addNoise(samples);
    await writeFile(path.join(tmp, "s.wav"), wavBytes(samples));
    await rename(path.join(tmp, "s.wav"), file);
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  return file;
}

async function speak(text: string, voice: SetVoice, dir: string, name: string): Promise<Int16Array> {
  const raw = path.join(dir, `${name}.wav`);
  if (voice === "slt") {
    const file = path.join(dir, `${name}.txt`);
    await writeFile(file, text);
    await run("text2wave", ["-eval", "(voice_cmu_us_slt_arctic_hts)", "-o", raw, file]);
  } else {
    await run("espeak-ng", ["-v", "en-us+klatt2", "-s", "140", "-w", raw, text]);
  }
  return trimSilence(await toPcm16(raw));
}

async function synthesise(dir: string): Promise<{ samples: Int16Array; sentences: SpokenSentence[] }> {
  const parts: Int16Array[] = [];
  const sentences: SpokenSentence[] = [];
  const pause = () => new Int16Array(Math.round(PAUSE_SEC * RATE));
  let at = Math.round(0.5 * RATE);
  parts.push(new Int16Array(at));
  for (const [i, s] of VOCABULARY_SENTENCES.entries()) {
    const voice = voiceOf(i);
    const utterance = await speak(s.text, voice, dir, `line-${i}`);
    sentences.push({ ...s, voice, start: at / RATE, end: (at + utterance.length) / RATE });
    const gap = pause();
    parts.push(utterance, gap);
    at += utterance.length + gap.length;
  }
  const samples = concatPcm(parts);
  addNoise(samples);
  return { samples, sentences };
}
