import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { createSynthesisEngine } from "../gpu-runner/engines/synthesis/factory";
import { fitToSlot, type FitFlag } from "../gpu-runner/engines/synthesis/fit";
import type { SynthesisEngineName, VoiceSpec } from "../gpu-runner/engines/synthesis/interface";

/**
 * Speech synthesis benchmark, local engines only (hosted ones would measure a fake); the speaker
 * is eSpeak NG reading English (`sampleLanguage: "en"`), dubbed into each language:
 *  - creating a voice (measuring the speaker, calibrating the engine in the language),
 *  - synthesis wall time per second of speech, per engine and language,
 *  - fitting: each line into slots from 1.3× to 0.4× its natural length; what share needed
 *    compression, a raised rate or a cut, and the worst overrun (the spec's bound: 5%).
 *
 *   npx tsx bench/synthesis.ts
 */
const LINES: Record<string, string[]> = {
  en: [
    "Good morning, and welcome back to the show.",
    "Every morning she walks to the market and buys fresh bread for the whole family.",
    "We tested the new engine for three weeks, and the results surprised everyone on the team.",
    "That's it for today.",
  ],
  es: [
    "Buenos días y bienvenidos de nuevo al programa.",
    "Cada mañana camina hasta el mercado y compra pan fresco para toda la familia.",
    "Probamos el nuevo motor durante tres semanas y los resultados sorprendieron a todo el equipo.",
    "Eso es todo por hoy.",
  ],
  ca: ["Bon dia i benvinguts de nou al programa.", "Cada matí camina fins al mercat i compra pa fresc per a tota la família."],
};
const CASES: [SynthesisEngineName, string][] = [
  ["espeak-ng", "en"],
  ["espeak-ng", "es"],
  ["festival", "en"],
  ["festival", "ca"],
];
const SHARES = [1.3, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4];

const dir = await mkdtemp(path.join(os.tmpdir(), "bench-synthesis-"));
const signal = AbortSignal.timeout(600_000);
const sample = path.join(dir, "speaker.wav");
execFileSync("espeak-ng", ["-v", "en-us+f3", "-p", "55", "-s", "170", "-w", sample, LINES.en!.join(" ")]);

try {
  for (const [name, language] of CASES) {
    const engine = createSynthesisEngine(name, {});
    let t = performance.now();
    const voice: VoiceSpec = await engine.createVoice({
      sampleWavPath: sample,
      sampleLanguage: "en",
      language,
      referenceOutPath: path.join(dir, "ref.wav"),
      signal,
    });
    const createMs = performance.now() - t;
    let speech = 0;
    t = performance.now();
    for (const [i, text] of LINES[language]!.entries())
      speech += (await engine.synthesize({ text, language, voice, outPath: path.join(dir, `s${i}.wav`), signal })).durationSec;
    const perSecond = (performance.now() - t) / 1000 / speech;

    const outcomes: Record<FitFlag | "kept" | "compressed", number> = { kept: 0, compressed: 0, rate_raised: 0, trimmed: 0 };
    let worst = 0;
    let fits = 0;
    t = performance.now();
    for (const text of LINES[language]!) {
      const natural = (await engine.synthesize({ text, language, voice, outPath: path.join(dir, "n.wav"), signal })).durationSec;
      for (const share of SHARES) {
        const slot = natural * share;
        const r = await fitToSlot({
          slotSec: slot,
          outPath: path.join(dir, "fit.wav"),
          signal,
          synthesize: (rate, outPath) => engine.synthesize({ text, language, voice, rate, outPath, signal }),
        });
        fits++;
        worst = Math.max(worst, r.speechDurationSec / slot - 1);
        if (r.flags.length === 0) outcomes[r.stretch < 1 ? "compressed" : "kept"]++;
        for (const f of r.flags) outcomes[f]++;
      }
    }
    const fitMs = (performance.now() - t) / fits;
    const v = voice.kind === "profile" ? `${voice.baseVoice} p=${voice.pitch.setting} rate=${voice.rate.setting}` : voice.model;
    console.log(
      `${name.padEnd(10)} ${language}  voice ${v}  create ${createMs.toFixed(0)} ms  synth ${perSecond.toFixed(3)} s/s of speech  ` +
        `fit ${fitMs.toFixed(0)} ms each: ${JSON.stringify(outcomes)} of ${fits}, worst overrun ${(worst * 100).toFixed(2)}%`,
    );
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
